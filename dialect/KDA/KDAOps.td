//===- KDAOps.td - KDA problem-level ops -----------------*- tablegen -*-===//
//
// Ops of the kda dialect: the whole chunked forward and its stages.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_DIALECT_KDA_KDAOPS_TD
#define KDA_DIALECT_KDA_KDAOPS_TD

include "KDA/KDADialect.td"
include "KDA/KDAEnums.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def KDA_FloatTensor : RankedTensorOf<[F16, BF16, F32]>;
def KDA_F32Tensor : RankedTensorOf<[F32]>;
def KDA_SeqLens : RankedTensorOf<[I64]>;

//===----------------------------------------------------------------------===//
// Stage P: optional preprocessing
//===----------------------------------------------------------------------===//

def KDA_L2NormOp : KDA_Op<"l2norm", [Pure]> {
  let summary = "L2 normalization of q or k along the feature dimension";
  let description = [{
    Normalizes every row of `x : [B, T, H, K]` along `K`:

    `y[b, t, h, :] = x[b, t, h, :] / sqrt(sum_d x[b, t, h, d]^2 + eps)`

    The sum and the division are in fp32; the result has the shape and the
    element type of `x`. `eps` defaults to `1e-6` and must be finite and
    positive. `K` must be static, with `1 <= K <= 256`; `B`, `T` and `H` may
    be dynamic.

    Example:

    ```mlir
    %qn = kda.l2norm %q : (tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16>
    %kn = kda.l2norm %k {eps = 1.0e-05 : f32}
        : (tensor<2x?x4x64xf16>) -> tensor<2x?x4x64xf16>
    ```
  }];
  let arguments = (ins
    KDA_FloatTensor:$x,
    DefaultValuedAttr<F32Attr, "1.0e-6">:$eps
  );
  let results = (outs KDA_FloatTensor:$result);
  let assemblyFormat = [{
    $x attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def KDA_BetaActivationOp : KDA_Op<"beta_activation", [Pure]> {
  let summary = "sigmoid activation of the raw beta logits";
  let description = [{
    Computes `beta = s * sigmoid(beta_raw)` elementwise in fp32, with
    `s = 2` when `allow_neg_eigval` is set (so that `beta` lies in (0, 2) and
    `I - beta k k^T` may have negative eigenvalues) and `s = 1` otherwise.

    `beta_raw` is `[B, T, HV]` of any supported float type; the result is
    fp32 of the same shape; any dimension may be dynamic.

    Example:

    ```mlir
    %beta = kda.beta_activation %b {allow_neg_eigval}
        : (tensor<?x?x8xbf16>) -> tensor<?x?x8xf32>
    ```
  }];
  let arguments = (ins
    KDA_FloatTensor:$beta_raw,
    UnitAttr:$allow_neg_eigval
  );
  let results = (outs KDA_F32Tensor:$result);
  let assemblyFormat = [{
    $beta_raw attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Stage 1: gate and chunk-local cumsum
//===----------------------------------------------------------------------===//

def KDA_GateCumsumOp : KDA_Op<"gate_cumsum",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "gate activation and chunk-local cumulative sum in log2 space";
  let description = [{
    Computes `G[r] = (1/ln 2) * sum_{r' <= r} gamma[c*BT + r']` within each
    chunk of `chunk_size` rows, restarting at every chunk (and at every
    sequence start when `cu_seqlens` is given). The sum is in fp32 and the
    factor `1/ln 2` is applied after the sum. `gamma` depends on `gate_mode`:

    - `precomputed`: `gamma = g`.
    - `softplus`: `gamma = -exp(A_log[hv]) * softplus(g + dt_bias[hv, :])`,
      where `softplus(x) = x` for `x > 20` and `log(1 + exp(x))` otherwise.
      `a_log` is required; `dt_bias` is optional.
    - `lower_bound`: `gamma = lower_bound * sigmoid(exp(A_log[hv]) * (g + dt_bias[hv, :]))`;
      both `a_log` and `dt_bias` are optional (a missing `a_log` means a factor of 1).

    `g` is `[B, T, HV, K]`, the result is fp32 of the same shape. `a_log` is
    `[HV]` fp32 and `dt_bias` is `[HV, K]` or `[HV * K]` fp32. With
    `cu_seqlens` (`[N + 1]` i64), `B` must be 1 and chunks restart at each
    sequence. Rows past the end of a sequence are never written.

    Example:

    ```mlir
    %G = kda.gate_cumsum %g {chunk_size = 64 : i64}
        : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
    %G2 = kda.gate_cumsum %g a_log %A dt_bias %dt cu_seqlens %cu
        {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32}
        : (tensor<1x?x4x64xbf16>, tensor<4xf32>, tensor<4x64xf32>, tensor<?xi64>)
        -> tensor<1x?x4x64xf32>
    ```
  }];
  let arguments = (ins
    KDA_FloatTensor:$g,
    Optional<KDA_F32Tensor>:$a_log,
    Optional<KDA_F32Tensor>:$dt_bias,
    Optional<KDA_SeqLens>:$cu_seqlens,
    DefaultValuedAttr<I64Attr, "64">:$chunk_size,
    DefaultValuedAttr<KDA_GateModeAttr, "::mlir::kda::GateMode::precomputed">:$gate_mode,
    OptionalAttr<F32Attr>:$lower_bound
  );
  let results = (outs KDA_F32Tensor:$result);
  let assemblyFormat = [{
    $g (`a_log` $a_log^)? (`dt_bias` $dt_bias^)? (`cu_seqlens` $cu_seqlens^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Stage 2: diagonal sub-chunk blocks
//===----------------------------------------------------------------------===//

def KDA_IntraDiagOp : KDA_Op<"intra_diag", [Pure]> {
  let summary = "diagonal BC x BC blocks of Aqk and Akk within each chunk";
  let description = [{
    For local rows `i >= j` of the same sub-chunk of `sub_chunk_size` (BC)
    rows, with value head `hv` reading q/k head `hv / (HV / H)`:

    - `Aqk[i, j] = scale * sum_d q[i, d] * k[j, d] * 2^(G[i, d] - G[j, d])`
    - `Akk[i, j] = beta[i] * sum_d k[i, d] * k[j, d] * 2^(G[i, d] - G[j, d])`

    `Aqk : [B, T, HV, BT]` (element type of `q`) receives the diagonal blocks
    at the local column `j mod BT`, diagonal included. `Akkd : [B, T, HV, BC]`
    (fp32) receives the strictly lower part of the diagonal `Akk` blocks at
    column `j mod BC`, with 0 on the diagonal. Entries above the diagonal are
    unspecified; consumers mask them.

    With `safe_gate` the blocks are formed as products of rescaled tiles with
    the gate of the middle row of each sub-chunk as reference (exact only
    while the gate is bounded, see `kda.chunk_fwd`), Aqk is written with zeros
    above the diagonal inside its blocks, and Akkd is overwritten by the
    inverses `(I + Akk_ss)^-1` of the diagonal blocks.

    `q, k : [B, T, H, K]` share one shape and element type, `G : [B, T, HV, K]`
    is the fp32 gate cumsum in log2 space and `beta : [B, T, HV]` is the
    activated beta. `chunk_size` (BT) is 16, 32 or 64, `sub_chunk_size` (BC) is 16,
    `scale` must be finite and positive.

    Example:

    ```mlir
    %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.125 : f32}
        : (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x8x64xf32>,
           tensor<?x?x8xf32>)
        -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x16xf32>)
    ```
  }];
  let arguments = (ins
    KDA_FloatTensor:$q,
    KDA_FloatTensor:$k,
    KDA_F32Tensor:$G,
    KDA_FloatTensor:$beta,
    Optional<KDA_SeqLens>:$cu_seqlens,
    F32Attr:$scale,
    DefaultValuedAttr<I64Attr, "64">:$chunk_size,
    DefaultValuedAttr<I64Attr, "16">:$sub_chunk_size,
    UnitAttr:$safe_gate
  );
  let results = (outs KDA_FloatTensor:$Aqk, KDA_F32Tensor:$Akkd);
  let assemblyFormat = [{
    $q `,` $k `,` $G `,` $beta (`cu_seqlens` $cu_seqlens^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Stage 3: off-diagonal sub-chunk blocks and the lower-triangular solve
//===----------------------------------------------------------------------===//

def KDA_InterSolveOp : KDA_Op<"inter_solve", [Pure]> {
  let summary = "off-diagonal sub-chunk blocks and M = (I + Akk)^-1 per chunk";
  let description = [{
    The fused inter-sub-chunk + solve stage. Per chunk and value head, for
    sub-chunks `I > J` with reference `gn_I = G` at the first row of
    sub-chunk `I`:

    - `Aqk_IJ = scale * (q_I * 2^(G_I - gn_I)) . (k_J * 2^(gn_I - G_J))^T`
    - `Akk_IJ = diag(beta_I) * (k_I * 2^(G_I - gn_I)) . (k_J * 2^(gn_I - G_J))^T`

    The diagonal blocks `Akk_II` are read from `Akkd` and inverted by forward
    substitution, `D_I = (I + Akk_II)^-1` (skipped with `safe_gate`, where
    `Akkd` already holds `D_I`). The blocks are then merged into the unit
    block-lower-triangular `M = (I + Akk)^-1`, with
    `M_IJ = -D_I * sum_{m = J .. I-1} Akk_Im * M_mJ`. The 16x16 merge products
    run at `precision` (`ieee`, `tf32` or `tf32x3`; default `tf32`).

    `Aqk_out` is `Aqk` with the blocks below the diagonal blocks filled in
    and zeros in the blocks above them (inside a diagonal block, above its
    diagonal, it holds what `Aqk` holds there). `M` is `[B, T, HV, BT]` in
    the element type of `q`, zero above the diagonal blocks. Operand shapes are as for `kda.intra_diag`, plus
    `Aqk : [B, T, HV, BT]` (element type of `q`) and `Akkd : [B, T, HV, BC]`
    (fp32).

    Example:

    ```mlir
    %Aqk2, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
        {precision = #kda<precision tf32x3>, scale = 0.125 : f32}
        : (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x8x64xf32>,
           tensor<?x?x8xf32>, tensor<?x?x8x64xbf16>, tensor<?x?x8x16xf32>)
        -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>)
    ```
  }];
  let arguments = (ins
    KDA_FloatTensor:$q,
    KDA_FloatTensor:$k,
    KDA_F32Tensor:$G,
    KDA_FloatTensor:$beta,
    KDA_FloatTensor:$Aqk,
    KDA_F32Tensor:$Akkd,
    Optional<KDA_SeqLens>:$cu_seqlens,
    F32Attr:$scale,
    DefaultValuedAttr<I64Attr, "64">:$chunk_size,
    DefaultValuedAttr<I64Attr, "16">:$sub_chunk_size,
    UnitAttr:$safe_gate,
    DefaultValuedAttr<KDA_SolvePrecisionAttr,
                      "::mlir::kda::SolvePrecision::tf32">:$precision
  );
  let results = (outs KDA_FloatTensor:$Aqk_out, KDA_FloatTensor:$M);
  let assemblyFormat = [{
    $q `,` $k `,` $G `,` $beta `,` $Aqk `,` $Akkd
    (`cu_seqlens` $cu_seqlens^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Stage 4: WY recompute
//===----------------------------------------------------------------------===//

def KDA_WYRecomputeOp : KDA_Op<"wy_recompute", [Pure]> {
  let summary = "WY representation w, u and the decayed keys kg per chunk";
  let description = [{
    Per chunk and value head, with `M` used as a dense `BT x BT` operand and
    `G_last` the gate cumsum at the last valid row of the chunk:

    - `u = M . (beta * v)`, in the element type of `v`;
    - `w = M . (beta * k * 2^G)`, in the element type of `k`;
    - `kg = k * 2^(G_last - G)`, in the element type of `k`; rows past the
      end of a sequence are 0.

    `k : [B, T, H, K]`, `v : [B, T, HV, V]`, `G : [B, T, HV, K]` (fp32),
    `beta : [B, T, HV]`, `M : [B, T, HV, BT]` (element type of `k`). Results
    are `w : [B, T, HV, K]`, `u : [B, T, HV, V]`, `kg : [B, T, HV, K]`.

    Example:

    ```mlir
    %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
        : (tensor<?x?x4x64xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x64xf32>,
           tensor<?x?x8xf32>, tensor<?x?x8x64xbf16>)
        -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x64xbf16>)
    ```
  }];
  let arguments = (ins
    KDA_FloatTensor:$k,
    KDA_FloatTensor:$v,
    KDA_F32Tensor:$G,
    KDA_FloatTensor:$beta,
    KDA_FloatTensor:$M,
    Optional<KDA_SeqLens>:$cu_seqlens,
    DefaultValuedAttr<I64Attr, "64">:$chunk_size
  );
  let results = (outs KDA_FloatTensor:$w, KDA_FloatTensor:$u,
                      KDA_FloatTensor:$kg);
  let assemblyFormat = [{
    $k `,` $v `,` $G `,` $beta `,` $M (`cu_seqlens` $cu_seqlens^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Stage 5: inter-chunk state recurrence
//===----------------------------------------------------------------------===//

def KDA_StateScanOp : KDA_Op<"state_scan",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "sequential scan of the recurrent state over the chunks";
  let description = [{
    Per sequence `n` and value head, starting from `S = initial_state[n]`
    (or 0), for each chunk `c` in order:

    1. `h[c] = S` (the state entering the chunk, in the element type of `kg`);
    2. `v_new[c] = u[c] - w[c] . S` (in the element type of `u`);
    3. `S = diag(2^G_last[c]) . S + kg[c]^T . v_new[c]`, where `G_last` is
       the gate cumsum at the last valid row of the chunk.

    The state `S` is fp32 throughout. The final state is returned only when
    the op has the optional third result `final_state`; there is no separate
    flag.

    Shapes: `kg, w : [B, T, HV, K]` (one element type), `u : [B, T, HV, V]`,
    `G : [B, T, HV, K]` (fp32). With `state_layout` `kv` (default) the states
    are `[.., K, V]`: `initial_state, final_state : [N, HV, K, V]` (fp32) and
    `h : [B, NT, HV, K, V]`. With `vk` the last two dimensions are swapped.
    `N` is `B`, or the number of sequences in `cu_seqlens`. `NT` is the total
    number of chunks; without `cu_seqlens` and with a static `T` it must be
    `ceil(T / chunk_size)`.

    Example:

    ```mlir
    %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G initial_state %h0
        {state_layout = #kda<state_layout vk>}
        : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>,
           tensor<2x?x8x64xf32>, tensor<2x8x128x64xf32>)
        -> (tensor<2x?x8x128x64xbf16>, tensor<2x?x8x128xbf16>,
            tensor<2x8x128x64xf32>)
    ```
  }];
  let arguments = (ins
    KDA_FloatTensor:$kg,
    KDA_FloatTensor:$w,
    KDA_FloatTensor:$u,
    KDA_F32Tensor:$G,
    Optional<KDA_F32Tensor>:$initial_state,
    Optional<KDA_SeqLens>:$cu_seqlens,
    DefaultValuedAttr<I64Attr, "64">:$chunk_size,
    DefaultValuedAttr<KDA_StateLayoutAttr,
                      "::mlir::kda::StateLayout::kv">:$state_layout
  );
  let results = (outs KDA_FloatTensor:$h, KDA_FloatTensor:$v_new,
                      Optional<KDA_F32Tensor>:$final_state);
  let assemblyFormat = [{
    $kg `,` $w `,` $u `,` $G (`initial_state` $initial_state^)?
    (`cu_seqlens` $cu_seqlens^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Stage 6: output
//===----------------------------------------------------------------------===//

def KDA_OutputOp : KDA_Op<"output", [Pure]> {
  let summary = "inter-chunk plus intra-chunk output";
  let description = [{
    Per chunk `c` and value head:

    `o[c] = scale * (q[c] * 2^G[c]) . h[c] + tril(Aqk[c]) . v_new[c]`

    `tril` keeps entries with `i >= j`, so unwritten entries of `Aqk` never
    contribute; `Aqk` already contains `scale`.

    `q : [B, T, H, K]`, `G : [B, T, HV, K]` (fp32), `Aqk : [B, T, HV, BT]` and
    `h : [B, NT, HV, K, V]` (`[B, NT, HV, V, K]` with `state_layout` `vk`) in
    the element type of `q`, `v_new : [B, T, HV, V]`. The result
    `o : [B, T, HV, V]` has the element type of `v_new`.

    Example:

    ```mlir
    %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
        : (tensor<?x?x4x64xbf16>, tensor<?x?x8x64xf32>, tensor<?x?x8x64xbf16>,
           tensor<?x?x8x64x128xbf16>, tensor<?x?x8x128xbf16>)
        -> tensor<?x?x8x128xbf16>
    ```
  }];
  let arguments = (ins
    KDA_FloatTensor:$q,
    KDA_F32Tensor:$G,
    KDA_FloatTensor:$Aqk,
    KDA_FloatTensor:$h,
    KDA_FloatTensor:$v_new,
    Optional<KDA_SeqLens>:$cu_seqlens,
    F32Attr:$scale,
    DefaultValuedAttr<I64Attr, "64">:$chunk_size,
    DefaultValuedAttr<KDA_StateLayoutAttr,
                      "::mlir::kda::StateLayout::kv">:$state_layout
  );
  let results = (outs KDA_FloatTensor:$o);
  let assemblyFormat = [{
    $q `,` $G `,` $Aqk `,` $h `,` $v_new (`cu_seqlens` $cu_seqlens^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Stages 5 and 6 fused: the recurrence with the output
//===----------------------------------------------------------------------===//

def KDA_StateScanOutputOp : KDA_Op<"state_scan_output",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "the state scan with the output computed inside it";
  let description = [{
    `kda.state_scan` followed by `kda.output` on its `h` and `v_new`, as one
    op that never materializes either: per sequence `n` and value head,
    starting from `S = initial_state[n]` (or 0), for each chunk `c` in
    order, with `Sr = S` rounded to the element type of `kg`:

    1. `v_new = u[c] - w[c] . Sr` (rounded to the element type of `u`);
    2. `o[c] = scale * (q[c] * 2^G[c]) . Sr + tril(Aqk[c]) . v_new`;
    3. `S = diag(2^G_last[c]) . S + kg[c]^T . v_new`.

    The values are those of the two ops in sequence (the same roundings, the
    same accumulation order). `kda-fuse-scan-output` writes this op in place
    of such a pair.

    Shapes: `kg, w : [B, T, HV, K]` (one element type), `u : [B, T, HV, V]`,
    `G : [B, T, HV, K]` (fp32), `q : [B, T, H, K]` and `Aqk : [B, T, HV, BT]`
    in the element type of `kg`; `o : [B, T, HV, V]` in the element type of
    `u`; `initial_state, final_state : [N, HV, K, V]` (fp32; `[N, HV, V, K]`
    with `state_layout` `vk`), `N` being `B` or the number of sequences of
    `cu_seqlens`.

    Example:

    ```mlir
    %o, %ht = kda.state_scan_output %kg, %w, %u, %G, %q, %Aqk
        initial_state %h0 {scale = 0.125 : f32}
        : (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>, tensor<?x?x8x128xbf16>,
           tensor<?x?x8x64xf32>, tensor<?x?x4x64xbf16>, tensor<?x?x8x64xbf16>,
           tensor<?x8x64x128xf32>)
        -> (tensor<?x?x8x128xbf16>, tensor<?x8x64x128xf32>)
    ```
  }];
  let arguments = (ins
    KDA_FloatTensor:$kg,
    KDA_FloatTensor:$w,
    KDA_FloatTensor:$u,
    KDA_F32Tensor:$G,
    KDA_FloatTensor:$q,
    KDA_FloatTensor:$Aqk,
    Optional<KDA_F32Tensor>:$initial_state,
    Optional<KDA_SeqLens>:$cu_seqlens,
    F32Attr:$scale,
    DefaultValuedAttr<I64Attr, "64">:$chunk_size,
    DefaultValuedAttr<KDA_StateLayoutAttr,
                      "::mlir::kda::StateLayout::kv">:$state_layout
  );
  let results = (outs KDA_FloatTensor:$o, Optional<KDA_F32Tensor>:$final_state);
  let assemblyFormat = [{
    $kg `,` $w `,` $u `,` $G `,` $q `,` $Aqk
    (`initial_state` $initial_state^)? (`cu_seqlens` $cu_seqlens^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// The recurrent form: decayed queries and keys, then one recurrence
//===----------------------------------------------------------------------===//

def KDA_DecayApplyOp : KDA_Op<"decay_apply", [Pure]> {
  let summary = "the gated query and the decayed keys the recurrence reads";
  let description = [{
    Token-parallel, per chunk and value head `hv` (reading q/k head
    `hv / (HV / H)`), with `G_last` the gate cumsum at the last valid row of
    the chunk:

    - `qg = rd(scale * q * 2^G)`, the query the output's inter-chunk term
      multiplies the state by;
    - `kd = rd(k * 2^G)`, the keys the state is read through;
    - `kg = rd(k * 2^(G_last - G))`, the keys the state is updated with (as
      `kda.wy_recompute` computes them);
    - `decay_last = 2^G_last`, the factors the recurrence decays the
      state's rows by, one row per chunk (exponentiated here, once per chunk
      and value head, rather than in every step of the recurrence's
      programs).

    `rd` rounds to the element type of `q`. Rows past the end of a sequence
    are 0.

    `q, k : [B, T, H, K]`, `G : [B, T, HV, K]` (fp32). Results `qg, kd, kg :
    [B, T, HV, K]` in the element type of `q`, and `decay_last : [B, NC, HV,
    K]` (fp32), indexed by chunk program: `NC = ceil(T / BT)` and chunk `c` of
    batch entry `b` at `[b, c]`; with `cu_seqlens`, `NC = floor(T / BT) + N`
    and chunk `c` of sequence `n` at `[0, floor(cu_seqlens[n] / BT) + n +
    c]` (slots of no chunk are never written). `kda-fuse-recurrence` writes
    this op and `kda.chunk_recurrence` in place of `kda.wy_recompute`,
    `kda.state_scan` and `kda.output`.

    Example:

    ```mlir
    %qg, %kd, %kg, %dl = kda.decay_apply %q, %k, %G {scale = 0.125 : f32}
        : (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x8x64xf32>)
        -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>,
            tensor<?x?x8x64xbf16>, tensor<?x?x8x64xf32>)
    ```
  }];
  let arguments = (ins
    KDA_FloatTensor:$q,
    KDA_FloatTensor:$k,
    KDA_F32Tensor:$G,
    Optional<KDA_SeqLens>:$cu_seqlens,
    F32Attr:$scale,
    DefaultValuedAttr<I64Attr, "64">:$chunk_size
  );
  let results = (outs KDA_FloatTensor:$qg, KDA_FloatTensor:$kd,
                      KDA_FloatTensor:$kg, KDA_F32Tensor:$decay_last);
  let assemblyFormat = [{
    $q `,` $k `,` $G (`cu_seqlens` $cu_seqlens^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def KDA_ChunkRecurrenceOp : KDA_Op<"chunk_recurrence",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "the state recurrence with the WY solve and the output inside";
  let description = [{
    The chunks of each sequence in order, from the decayed queries and keys
    of `kda.decay_apply`, the solve `M` and the diagonal blocks `Aqk`:
    per sequence `n` and value head, starting from `S = initial_state[n]`
    (or 0), for each chunk `c`, with `Sr = S` rounded to the element type of
    `kd`:

    1. `x = rd(beta[c] * (v[c] - kd[c] . Sr))` (rounded to the element type of
       `v`; `beta` scales rows);
    2. `v_new = rd(tril(M[c]) . x)`, which equals `u - w . S` of
       `kda.wy_recompute` and `kda.state_scan` (`u = M . (beta v)`,
       `w = M . (beta k 2^G)`) up to rounding;
    3. `o[c] = qg[c] . Sr + tril(Aqk[c]) . v_new`;
    4. `S = diag(decay_last[c]) . S + kg[c]^T . v_new`, where
       `decay_last[c] = 2^G_last` and `G_last` is the gate cumsum at the last
       valid row of the chunk (`kda.decay_apply`'s result of that name).

    Neither `w`, `u`, the per-chunk states `h` nor `v_new` exist in memory:
    what the recurrence reads besides the inputs `v` and `beta` is `qg`,
    `kd`, `kg`, `M`, `Aqk` and one row of `decay_last` per chunk. The state `S`
    is fp32 throughout.

    Shapes: `qg, kd, kg : [B, T, HV, K]` (one element type), `v : [B, T, HV,
    V]`, `beta : [B, T, HV]`, `M, Aqk : [B, T, HV, BT]` in the element type
    of `kd`, `decay_last : [B, NC, HV, K]` (fp32, indexed by chunk program as
    `kda.decay_apply` writes it); `o : [B, T, HV, V]` in the element
    type of `v`; `initial_state, final_state : [N, HV, K, V]` (fp32; `[N,
    HV, V, K]` with `state_layout` `vk`), `N` being `B` or the number of
    sequences of `cu_seqlens`.

    Example:

    ```mlir
    %o, %ht = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl
        initial_state %h0
        : (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>,
           tensor<?x?x8x128xbf16>, tensor<?x?x8xf32>, tensor<?x?x8x64xbf16>,
           tensor<?x?x8x64xbf16>, tensor<?x?x8x64xf32>, tensor<?x8x64x128xf32>)
        -> (tensor<?x?x8x128xbf16>, tensor<?x8x64x128xf32>)
    ```
  }];
  let arguments = (ins
    KDA_FloatTensor:$qg,
    KDA_FloatTensor:$kd,
    KDA_FloatTensor:$kg,
    KDA_FloatTensor:$v,
    KDA_FloatTensor:$beta,
    KDA_FloatTensor:$M,
    KDA_FloatTensor:$Aqk,
    KDA_F32Tensor:$decay_last,
    Optional<KDA_F32Tensor>:$initial_state,
    Optional<KDA_SeqLens>:$cu_seqlens,
    DefaultValuedAttr<I64Attr, "64">:$chunk_size,
    DefaultValuedAttr<KDA_StateLayoutAttr,
                      "::mlir::kda::StateLayout::kv">:$state_layout
  );
  let results = (outs KDA_FloatTensor:$o, Optional<KDA_F32Tensor>:$final_state);
  let assemblyFormat = [{
    $qg `,` $kd `,` $kg `,` $v `,` $beta `,` $M `,` $Aqk `,` $decay_last
    (`initial_state` $initial_state^)? (`cu_seqlens` $cu_seqlens^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Whole forward
//===----------------------------------------------------------------------===//

def KDA_ChunkFwdOp : KDA_Op<"chunk_fwd", [Pure, AttrSizedOperandSegments]> {
  let summary = "the whole chunked KDA forward";
  let description = [{
    Computes, per sequence and value head `hv` (reading q/k head
    `hv / (HV / H)`), the gated delta rule recurrence

    `S_t = (I - beta_t k_t k_t^T) diag(exp(g_t)) S_{t-1} + beta_t k_t v_t^T`,
    `o_t = scale * S_t^T q_t`,

    starting from `initial_state` (or 0), evaluated chunk by chunk as the
    stage ops do (`gate_cumsum`, `intra_diag`, `inter_solve`, `wy_recompute`,
    `state_scan`, `output`; or, after `kda-fuse-recurrence`, the first three
    then `decay_apply` and `chunk_recurrence`).

    Operands: `q, k : [B, T, H, K]` (same shape and element type),
    `v : [B, T, HV, V]`, `g : [B, T, HV, K]`, `beta : [B, T, HV]`, with
    `HV % H == 0` (checked at run time when they are dynamic), static
    `K, V` and `1 <= K, V <= 256`. Optional:
    `a_log : [HV]` and `dt_bias : [HV, K]` or `[HV * K]` (fp32, for an
    in-kernel gate), `initial_state : [N, HV, K, V]` (`[N, HV, V, K]` with
    `state_layout` `vk`; fp32), `cu_seqlens : [N + 1]` (i64; then `B = 1`).
    `N` is `B` without `cu_seqlens`.

    Results: `o : [B, T, HV, V]` in the element type of `q`, and, only when
    the op has a second result, `final_state` with the layout and type of
    `initial_state`.

    Attributes:
    - `scale`: defaults to `K^-0.5` when absent; finite and positive.
    - `chunk_size` (16, 32 or 64, default 64; with 16 a chunk is one sub-chunk), `sub_chunk_size` (16).
    - `gate_mode`, `lower_bound`: as for `kda.gate_cumsum`.
    - `safe_gate`: use the factored diagonal blocks. With an in-kernel gate
      it requires `gate_mode` `lower_bound` with `lower_bound` in [-5, 0);
      with a precomputed gate the caller keeps `g` in [-5, 0].
    - `use_qk_l2norm`: L2-normalize q and k first (`kda.l2norm`).
    - `use_beta_sigmoid`: `beta` holds logits (`kda.beta_activation`);
      `allow_neg_eigval` (which requires it) scales the sigmoid by 2.
    - `precision`: precision of the solve merge (default `tf32`).
    - `state_layout`: `kv` (default) or `vk`.

    Example:

    ```mlir
    %o = kda.chunk_fwd %q, %k, %v, %g, %beta
        : (tensor<2x?x4x128xbf16>, tensor<2x?x4x128xbf16>,
           tensor<2x?x8x128xbf16>, tensor<2x?x8x128xf32>, tensor<2x?x8xf32>)
        -> tensor<2x?x8x128xbf16>
    %o2, %ht = kda.chunk_fwd %q1, %k1, %v1, %g1, %b1 a_log %A dt_bias %dt
        initial_state %h0 cu_seqlens %cu
        {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32,
         safe_gate, use_qk_l2norm, use_beta_sigmoid,
         state_layout = #kda<state_layout vk>}
        : (tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>,
           tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4xbf16>,
           tensor<4xf32>, tensor<512xf32>, tensor<?x4x128x128xf32>,
           tensor<?xi64>)
        -> (tensor<1x?x4x128xbf16>, tensor<?x4x128x128xf32>)
    ```
  }];
  let arguments = (ins
    KDA_FloatTensor:$q,
    KDA_FloatTensor:$k,
    KDA_FloatTensor:$v,
    KDA_FloatTensor:$g,
    KDA_FloatTensor:$beta,
    Optional<KDA_F32Tensor>:$a_log,
    Optional<KDA_F32Tensor>:$dt_bias,
    Optional<KDA_F32Tensor>:$initial_state,
    Optional<KDA_SeqLens>:$cu_seqlens,
    OptionalAttr<F32Attr>:$scale,
    DefaultValuedAttr<I64Attr, "64">:$chunk_size,
    DefaultValuedAttr<I64Attr, "16">:$sub_chunk_size,
    DefaultValuedAttr<KDA_GateModeAttr, "::mlir::kda::GateMode::precomputed">:$gate_mode,
    OptionalAttr<F32Attr>:$lower_bound,
    UnitAttr:$safe_gate,
    UnitAttr:$use_qk_l2norm,
    UnitAttr:$use_beta_sigmoid,
    UnitAttr:$allow_neg_eigval,
    DefaultValuedAttr<KDA_SolvePrecisionAttr,
                      "::mlir::kda::SolvePrecision::tf32">:$precision,
    DefaultValuedAttr<KDA_StateLayoutAttr,
                      "::mlir::kda::StateLayout::kv">:$state_layout
  );
  let results = (outs KDA_FloatTensor:$o, Optional<KDA_F32Tensor>:$final_state);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $g `,` $beta (`a_log` $a_log^)? (`dt_bias` $dt_bias^)?
    (`initial_state` $initial_state^)? (`cu_seqlens` $cu_seqlens^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The scale to use: the `scale` attribute, or `K^-0.5` without it.
    float getEffectiveScale();
  }];
}

#endif // KDA_DIALECT_KDA_KDAOPS_TD
