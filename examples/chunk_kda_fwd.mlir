// The whole KDA forward, as a user calls it: fla's chunk_kda with its
// default flags (a precomputed fp32 log gate, q and k normalized by the
// caller, beta in (0, 1)), an fp32 initial state and the final state, at the
// benchmark shape H = HV = 96, K = V = 128, bf16, one batch entry of any
// length T. `scale` defaults to K^-0.5.
//
//   kda-translate examples/chunk_kda_fwd.mlir --kda-to-bundle -o fwd.kdab
//   kda-run fwd.kdab --batch 1 --seq-len 8192 --heads 96 --value-heads 96
//
// convert-chunk-fwd-to-stages writes it as the chain of stage ops
// (gate_cumsum, intra_diag, inter_solve, wy_recompute, state_scan, output).
// kda-translate builds it, by default, in the recurrent form at chunks of
// 16 (kda-fuse-recurrence: decay_apply and chunk_recurrence instead of the
// last three) with the per-chunk stages fused: two kernels. With
// --fuse-recurrence=false the bundle launches the six stages' kernels in
// that order.
func.func @chunk_kda_fwd(%q: tensor<1x?x96x128xbf16>, %k: tensor<1x?x96x128xbf16>,
                         %v: tensor<1x?x96x128xbf16>, %g: tensor<1x?x96x128xf32>,
                         %beta: tensor<1x?x96xf32>, %h0: tensor<1x96x128x128xf32>)
    -> (tensor<1x?x96x128xbf16>, tensor<1x96x128x128xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0
      : (tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>,
         tensor<1x?x96x128xf32>, tensor<1x?x96xf32>, tensor<1x96x128x128xf32>)
      -> (tensor<1x?x96x128xbf16>, tensor<1x96x128x128xf32>)
  return %o, %ht : tensor<1x?x96x128xbf16>, tensor<1x96x128x128xf32>
}
