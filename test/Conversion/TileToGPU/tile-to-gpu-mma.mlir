// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu | FileCheck %s

// A matmul on tf32-rounded operands (tile.tf32) with a 16x8x8-divisible
// shape runs on tensor cores: warps take 16x8 output tiles in turn and
// accumulate over K in registers with mma.sync m16n8k8.

// CHECK-LABEL: gpu.func @tc
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK: scf.for %{{.*}} = %[[WARP]] to %{{.*}} step %{{.*}} {
// CHECK: %[[ACC:.*]] = vector.from_elements {{.*}} : vector<2x2xf32>
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[SUM:.*]] = %[[ACC]]) -> (vector<2x2xf32>) {
// CHECK: %[[A:.*]] = vector.from_elements {{.*}} : vector<4x1xf32>
// CHECK: %[[B:.*]] = vector.from_elements {{.*}} : vector<2x1xf32>
// CHECK: nvgpu.mma.sync(%[[A]], %[[B]], %[[SUM]]) {mmaShape = [16, 8, 8], tf32Enabled}
// CHECK: vector.extract %[[R]][1, 1] : f32 from vector<2x2xf32>
// CHECK: memref.store
// CHECK: gpu.barrier
func.func @tc(%a: memref<16x32xf32, #gpu.address_space<workgroup>>, %b: memref<32x32xf32>, %c: memref<16x32xf32, #gpu.address_space<workgroup>>) attributes {tile.kernel, tile.num_threads = 64 : i64} {
  linalg.matmul {tile.tf32} ins(%a, %b : memref<16x32xf32, #gpu.address_space<workgroup>>, memref<32x32xf32>) outs(%c : memref<16x32xf32, #gpu.address_space<workgroup>>)
  return
}

// -----

// Without the tf32 marking (precision = ieee) the product stays exact fp32
// on CUDA cores.
// CHECK-LABEL: gpu.func @ieee
// CHECK-NOT: nvgpu.mma.sync
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @ieee(%a: memref<16x32xf32>, %b: memref<32x32xf32>, %c: memref<16x32xf32>) attributes {tile.kernel} {
  linalg.matmul ins(%a, %b : memref<16x32xf32>, memref<32x32xf32>) outs(%c : memref<16x32xf32>)
  return
}

// -----

// Shapes that do not tile by 16x8x8 fall back to CUDA cores.
// CHECK-LABEL: gpu.func @odd_shape
// CHECK-NOT: nvgpu.mma.sync
func.func @odd_shape(%a: memref<12x8xf32>, %b: memref<8x8xf32>, %c: memref<12x8xf32>) attributes {tile.kernel} {
  linalg.matmul {tile.tf32} ins(%a, %b : memref<12x8xf32>, memref<8x8xf32>) outs(%c : memref<12x8xf32>)
  return
}
