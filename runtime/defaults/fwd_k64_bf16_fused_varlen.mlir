// Default bundle: the whole forward with the fused flag set (FlashKDA's):
// the lower-bound gate (-5) on raw bf16 g with A_log and dt_bias, q/k l2norm
// and beta sigmoid in the kernel, safe_gate, states in layout vk; bf16,
// K = V = 64, fp32 initial and final state. Batch, tokens and head counts
// are dynamic. Varlen: B = 1 and cu_seqlens (N + 1 int64 offsets)
// packs N sequences along T; the states are [N, HV, V, K].
func.func @fwd_k64_bf16_fused_varlen(%q: tensor<1x?x?x64xbf16>, %k: tensor<1x?x?x64xbf16>,
                                     %v: tensor<1x?x?x64xbf16>, %g: tensor<1x?x?x64xbf16>,
                                     %beta: tensor<1x?x?xbf16>, %A: tensor<?xf32>,
                                     %dt: tensor<?x64xf32>, %h0: tensor<?x?x64x64xf32>,
                                     %cu: tensor<?xi64>)
    -> (tensor<1x?x?x64xbf16>, tensor<?x?x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %A dt_bias %dt initial_state %h0 cu_seqlens %cu
      {use_qk_l2norm, use_beta_sigmoid, safe_gate,
       gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32,
       state_layout = #kda<state_layout vk>}
      : (tensor<1x?x?x64xbf16>, tensor<1x?x?x64xbf16>, tensor<1x?x?x64xbf16>,
         tensor<1x?x?x64xbf16>, tensor<1x?x?xbf16>, tensor<?xf32>, tensor<?x64xf32>,
         tensor<?x?x64x64xf32>, tensor<?xi64>)
      -> (tensor<1x?x?x64xbf16>, tensor<?x?x64x64xf32>)
  return %o, %ht : tensor<1x?x?x64xbf16>, tensor<?x?x64x64xf32>
}
