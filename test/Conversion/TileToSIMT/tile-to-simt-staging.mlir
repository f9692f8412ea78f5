// RUN: kda-opt %s --kda-assign-tile-layouts --convert-tile-to-simt --canonicalize --cse | FileCheck %s
// RUN: sed 's/stages = 2/stages = 1/' %s | kda-opt --kda-assign-tile-layouts --convert-tile-to-simt --canonicalize --cse | FileCheck %s --check-prefix=UNPIPELINED

// When a tile that several warps hold whole goes through shared memory
// (worthStaging in SIMTMemory.cpp): here a recurrence at chunk 16 on two
// warps (8 columns of the [128, 16] state each), whose [16, 128] bf16
// operand (4 KiB, A of the first dot and, transposed, of the second) both
// warps read whole. Pipelined (stages = 2), its register copies would be
// held twice (this trip's and the next one's), so from 4 KiB of extra
// reads it is copied by cp.async into a padded shared buffer of two
// 16-row slots and read with ldmatrix, the next trip's copies issued in
// this one.
// CHECK-LABEL: func.func @two_warps
// CHECK: memref.alloc() : memref<32x136xbf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %arg0{{.*}} : memref<?x128xbf16> to memref<32x136xbf16, #gpu.address_space<workgroup>>
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group
// CHECK: nvgpu.device_async_copy %arg0{{.*}} : memref<?x128xbf16> to memref<32x136xbf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.ldmatrix
// CHECK: scf.yield
// Not pipelined, the extra 4 KiB do not reach the 8 KiB that pay for the
// copy: each warp loads the tile into its registers.
// UNPIPELINED-LABEL: func.func @two_warps
// UNPIPELINED-NOT: nvgpu.device_async_copy
// UNPIPELINED-NOT: nvvm.ldmatrix
// UNPIPELINED: return
func.func @two_warps(%kd: memref<?x128xbf16>, %u: memref<16x16xf32>, %out: memref<128x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, stages = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<128x16xf32>
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%st = %z) -> (tensor<128x16xf32>) {
    %row = arith.muli %i, %c16 : index
    %k = tile.load %kd[%row, %c0] dims [0, 1] : memref<?x128xbf16> -> tensor<16x128xbf16>
    %ut = tile.load %u[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
    %zv = tile.splat %zero : f32 -> tensor<16x16xf32>
    %sr = arith.truncf %st : tensor<128x16xf32> to tensor<128x16xbf16>
    %ks = tile.dot %k, %sr, %zv : tensor<16x128xbf16>, tensor<128x16xbf16> -> tensor<16x16xf32>
    %vn = arith.subf %ut, %ks : tensor<16x16xf32>
    %vr = arith.truncf %vn : tensor<16x16xf32> to tensor<16x16xbf16>
    %kt = tile.trans %k permutation [1, 0] : tensor<16x128xbf16> -> tensor<128x16xbf16>
    %n = tile.dot %kt, %vr, %st : tensor<128x16xbf16>, tensor<16x16xbf16> -> tensor<128x16xf32>
    scf.yield %n : tensor<128x16xf32>
  }
  tile.store %s, %out[%c0, %c0] dims [0, 1] : tensor<128x16xf32>, memref<128x16xf32>
  return
}
