// Default bundle: the whole forward with fla's default flags (a precomputed
// fp32 log gate, q and k normalized and beta activated by the caller), bf16
// q, k, v and beta, K = V = 64, fp32 initial and final state. Batch, tokens
// and head counts are dynamic. Varlen: B = 1 and cu_seqlens (N + 1 int64 offsets)
// packs N sequences along T; the states are [N, HV, K, V].
func.func @fwd_k64_bf16_default_varlen(%q: tensor<1x?x?x64xbf16>, %k: tensor<1x?x?x64xbf16>,
                                       %v: tensor<1x?x?x64xbf16>, %g: tensor<1x?x?x64xf32>,
                                       %beta: tensor<1x?x?xbf16>, %h0: tensor<?x?x64x64xf32>,
                                       %cu: tensor<?xi64>)
    -> (tensor<1x?x?x64xbf16>, tensor<?x?x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 cu_seqlens %cu
      : (tensor<1x?x?x64xbf16>, tensor<1x?x?x64xbf16>, tensor<1x?x?x64xbf16>,
         tensor<1x?x?x64xf32>, tensor<1x?x?xbf16>, tensor<?x?x64x64xf32>, tensor<?xi64>)
      -> (tensor<1x?x?x64xbf16>, tensor<?x?x64x64xf32>)
  return %o, %ht : tensor<1x?x?x64xbf16>, tensor<?x?x64x64xf32>
}
