// Default bundle: the whole forward with fla's default flags (a precomputed
// fp32 log gate, q and k normalized and beta activated by the caller), bf16
// q, k, v and beta, K = V = 64, fp32 initial and final state. Batch, tokens
// and head counts are dynamic.
func.func @fwd_k64_bf16_default(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>,
                                 %v: tensor<?x?x?x64xbf16>, %g: tensor<?x?x?x64xf32>,
                                 %beta: tensor<?x?x?xbf16>, %h0: tensor<?x?x64x64xf32>)
    -> (tensor<?x?x?x64xbf16>, tensor<?x?x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0
      : (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
         tensor<?x?x?x64xf32>, tensor<?x?x?xbf16>, tensor<?x?x64x64xf32>)
      -> (tensor<?x?x?x64xbf16>, tensor<?x?x64x64xf32>)
  return %o, %ht : tensor<?x?x?x64xbf16>, tensor<?x?x64x64xf32>
}
