// RUN: kda-opt %s --split-input-file --convert-kda-to-tile -verify-diagnostics

// The intra_diag kernel is specialized on K; the op verifier rejects a
// dynamic K before the lowering runs, with a diagnostic (the lowering relies
// on it). Head counts may be dynamic.

func.func @dynamic_k(%q: tensor<?x?x2x?xbf16>, %k: tensor<?x?x2x?xbf16>,
                     %G: tensor<?x?x4x?xf32>, %beta: tensor<?x?x4xf32>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'kda.intra_diag' op operand 'q' must have a static K (dimension 3): kernels are specialized on it}}
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.125 : f32}
      : (tensor<?x?x2x?xbf16>, tensor<?x?x2x?xbf16>, tensor<?x?x4x?xf32>, tensor<?x?x4xf32>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>
}
