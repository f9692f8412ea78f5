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
        {gate_mode = #kda.gate_mode<lower_bound>, lower_bound = -5.0 : f32}
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

#endif // KDA_DIALECT_KDA_KDAOPS_TD
