// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu -verify-diagnostics

func.func @heap_temporary(%a: memref<4xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{tile temporaries on the GPU must be statically shaped workgroup buffers (bufferize with memory-space=workgroup)}}
  %t = memref.alloc() : memref<16xf32>
  return
}

// -----

func.func @unbufferized_inverse(%a: tensor<4x4xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.unit_lower_inverse' op must be bufferized before convert-tile-to-gpu}}
  %x = tile.unit_lower_inverse ins(%a : tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

// expected-error @+1 {{a tile kernel on the GPU returns nothing (it writes its results through memref arguments), this one returns 'index'}}
func.func @returns_value() -> index attributes {tile.kernel} {
  %p = tile.program_id x
  return %p : index
}

// -----

func.func @index_tile(%a: memref<64xindex>) attributes {tile.kernel} {
  // expected-error @+1 {{tile temporaries on the GPU must have integer or float elements of whole bytes, got 'index' (convert index tiles with arith.index_cast first)}}
  %t = memref.alloc() : memref<64xindex, #gpu.address_space<workgroup>>
  memref.copy %t, %a : memref<64xindex, #gpu.address_space<workgroup>> to memref<64xindex>
  return
}

// -----

// The tiles of a 256 x 256 f32 inverse need 256 KiB of shared memory: an
// error here, before the backend spends minutes on the kernel.
// expected-error @+1 {{needs 262144 bytes of shared memory for its tiles, more than the 232448 a block may have on sm_90; use smaller tiles}}
func.func @too_much_shared(%a: memref<256x256xf32>) attributes {tile.kernel} {
  %t = memref.alloc() : memref<256x256xf32, #gpu.address_space<workgroup>>
  memref.copy %a, %t : memref<256x256xf32> to memref<256x256xf32, #gpu.address_space<workgroup>>
  memref.copy %t, %a : memref<256x256xf32, #gpu.address_space<workgroup>> to memref<256x256xf32>
  return
}

// -----

// Each kernel's gpu.module is named after it; another symbol of that name
// is an error, not a silent rename.

func.func @taken_module() {
  return
}

// expected-error @+1 {{cannot name the gpu.module of this kernel 'taken_module': the name is taken}}
func.func @taken(%a: memref<4xf32>) attributes {tile.kernel} {
  return
}
