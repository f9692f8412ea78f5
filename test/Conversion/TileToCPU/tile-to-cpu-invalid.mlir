// RUN: kda-opt %s --split-input-file --convert-tile-to-cpu -verify-diagnostics

func.func @dynamic_temporary(%n: index) attributes {tile.kernel} {
  // expected-error @+1 {{tile temporaries must be statically shaped}}
  %t = memref.alloc(%n) : memref<?xf32>
  return
}

// -----

func.func @unbufferized_inverse(%a: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {tile.kernel} {
  // expected-error @+1 {{'tile.unit_lower_inverse' op must be bufferized before convert-tile-to-cpu}}
  %x = tile.unit_lower_inverse ins(%a : tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %x : tensor<4x4xf32>
}
