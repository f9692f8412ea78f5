// RUN: kda-opt %s --split-input-file --convert-kda-to-tile -verify-diagnostics

// The intra_diag kernel is specialized on the head counts and K; the op
// verifier rejects dynamic ones before the lowering runs, with a
// diagnostic (the lowering relies on it).

func.func @dynamic_k(%q: tensor<?x?x2x?xbf16>, %k: tensor<?x?x2x?xbf16>,
                     %G: tensor<?x?x4x?xf32>, %beta: tensor<?x?x4xf32>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'kda.intra_diag' op operand 'q' must have a static K (dimension 3): kernels are specialized on it}}
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.125 : f32}
      : (tensor<?x?x2x?xbf16>, tensor<?x?x2x?xbf16>, tensor<?x?x4x?xf32>, tensor<?x?x4xf32>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>
}

// -----

func.func @dynamic_hv(%q: tensor<?x?x2x64xf32>, %k: tensor<?x?x2x64xf32>,
                      %G: tensor<?x?x?x64xf32>, %beta: tensor<?x?x?xf32>)
    -> (tensor<?x?x?x32xf32>, tensor<?x?x?x16xf32>) {
  // expected-error @+1 {{'kda.intra_diag' op operand 'G' must have a static HV (dimension 2): kernels are specialized on it}}
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.125 : f32, chunk_size = 32 : i64, safe_gate}
      : (tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>, tensor<?x?x?x64xf32>, tensor<?x?x?xf32>)
      -> (tensor<?x?x?x32xf32>, tensor<?x?x?x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x?x32xf32>, tensor<?x?x?x16xf32>
}
