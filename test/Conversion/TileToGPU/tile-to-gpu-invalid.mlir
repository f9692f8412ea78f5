// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu -verify-diagnostics

// expected-error @+1 {{tile.num_threads must be in [1, 1024], got 2048}}
func.func @too_many_threads(%a: memref<4xf32>) attributes {tile.kernel, tile.num_threads = 2048 : i64} {
  return
}

// -----

func.func @heap_temporary(%a: memref<4xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{tile temporaries on the GPU must be statically shaped workgroup buffers (bufferize with memory-space=workgroup)}}
  %t = memref.alloc() : memref<16xf32>
  return
}

// -----

// expected-error @+1 {{tile.max_registers must be in [0, 255], got 300}}
func.func @too_many_registers(%a: memref<4xf32>) attributes {tile.kernel, tile.max_registers = 300 : i64} {
  return
}

// -----

func.func @unbufferized_inverse(%a: tensor<4x4xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.unit_lower_inverse' op must be bufferized before convert-tile-to-gpu}}
  %x = tile.unit_lower_inverse ins(%a : tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}
