// RUN: kda-opt %s --split-input-file --convert-kda-to-tile -verify-diagnostics

// kda.state_scan kernels are specialized on HV, K and V: dynamic ones are
// diagnosed by the op's verifier before the conversion runs (the lowering
// relies on it and has no dynamic-size path).

func.func @dynamic_k(%kg: tensor<2x?x8x?xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x?xf32>)
    -> (tensor<2x?x8x?x128xbf16>, tensor<2x?x8x128xbf16>) {
  // expected-error @+1 {{'kda.state_scan' op operand 'kg' must have a static K (dimension 3): kernels are specialized on it}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G
      : (tensor<2x?x8x?xbf16>, tensor<2x?x8x?xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x?xf32>)
      -> (tensor<2x?x8x?x128xbf16>, tensor<2x?x8x128xbf16>)
  return %h, %vn : tensor<2x?x8x?x128xbf16>, tensor<2x?x8x128xbf16>
}

// -----

func.func @dynamic_v(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x?xbf16>, %G: tensor<2x?x8x64xf32>)
    -> (tensor<2x?x8x64x?xbf16>, tensor<2x?x8x?xbf16>) {
  // expected-error @+1 {{'kda.state_scan' op operand 'u' must have a static V (dimension 3): kernels are specialized on it}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x?xbf16>, tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x?xbf16>, tensor<2x?x8x?xbf16>)
  return %h, %vn : tensor<2x?x8x64x?xbf16>, tensor<2x?x8x?xbf16>
}
