// kda.intra_diag at the target shape: H = HV = 96, K = 128, bf16, chunk 64,
// the exact path (per-element exp2 of gate differences, any g <= 0).
func.func @intra_diag(%q: tensor<?x?x96x128xbf16>, %k: tensor<?x?x96x128xbf16>,
                      %G: tensor<?x?x96x128xf32>, %beta: tensor<?x?x96xf32>)
    -> (tensor<?x?x96x64xbf16>, tensor<?x?x96x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.0883883461 : f32}
      : (tensor<?x?x96x128xbf16>, tensor<?x?x96x128xbf16>, tensor<?x?x96x128xf32>,
         tensor<?x?x96xf32>)
      -> (tensor<?x?x96x64xbf16>, tensor<?x?x96x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x96x64xbf16>, tensor<?x?x96x16xf32>
}
