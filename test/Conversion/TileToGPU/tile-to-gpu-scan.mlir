// RUN: kda-opt %s --convert-tile-to-linalg --kda-bufferize-tiles --convert-tile-to-gpu | FileCheck %s

// A tile.scan runs on the GPU as one sequential loop per line: each thread
// owns a column and carries the running sum in a register, combining the
// elements in the same order as the linalg.generic that defines the scan.

// CHECK-LABEL: gpu.func @scan_rows
// CHECK: scf.for %[[COL:.*]] = %thread_id_x{{[_0-9]*}} to %c32{{[_0-9]*}} step %c128{{[_0-9]*}} {
// CHECK: %{{.*}} = scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK: %[[X:.*]] = memref.load %{{.*}}[%[[ROW]], %[[COL]]]
// CHECK: %[[P:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK: %[[I:.*]] = memref.load %[[OUT:.*]][%[[ROW]], %[[COL]]]
// CHECK: %[[R:.*]] = arith.addf %[[I]], %[[P]] : f32
// CHECK: memref.store %[[R]], %[[OUT]][%[[ROW]], %[[COL]]]
// CHECK: scf.yield %[[P]] : f32
// CHECK: gpu.barrier
func.func @scan_rows(%m: memref<64x32xf32>, %o: memref<64x32xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %t = tile.load %m[%c0, %c0] dims [0, 1] : memref<64x32xf32> -> tensor<64x32xf32>
  %s = tile.scan add %t dim 0 : tensor<64x32xf32>
  tile.store %s, %o[%c0, %c0] dims [0, 1] : tensor<64x32xf32>, memref<64x32xf32>
  return
}

// CHECK-LABEL: gpu.func @scan_reverse_max
// CHECK: arith.subi %c15, %{{.*}} : index
// CHECK: arith.maximumf
func.func @scan_reverse_max(%m: memref<16xf32>, %o: memref<16xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %t = tile.load %m[%c0] dims [0] : memref<16xf32> -> tensor<16xf32>
  %s = tile.scan max %t dim 0 reverse : tensor<16xf32>
  tile.store %s, %o[%c0] dims [0] : tensor<16xf32>, memref<16xf32>
  return
}
