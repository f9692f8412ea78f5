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

// -----

// A matmul of bf16 operands into an f32 accumulator runs on tensor cores
// with mma.sync m16n8k16 (no marking needed: bf16 products are exact in
// f32). Each register packs two consecutive bf16 elements (the first in the
// low half) as an i32: A rows g and g+8 at columns k+2t, k+2t+1 and
// k+2t+8, k+2t+9; B rows k+2t, k+2t+1 and k+2t+8, k+2t+9 at column g.
// CHECK-LABEL: gpu.func @tc_bf16
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK: scf.for %{{.*}} = %[[WARP]] to %{{.*}} step %{{.*}} {
// CHECK: %[[C0:.*]] = memref.load %{{.*}} : memref<32x16xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c16{{.*}} iter_args(%[[S0:.*]] = %[[C0]], %[[S1:.*]] = %{{.*}}, %[[S2:.*]] = %{{.*}}, %[[S3:.*]] = %{{.*}}) -> (f32, f32, f32, f32) {
// CHECK: %[[LO:.*]] = memref.load %{{.*}} : memref<32x64xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[HI:.*]] = memref.load %{{.*}} : memref<32x64xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[PAIR:.*]] = vector.from_elements %[[LO]], %[[HI]] : vector<2xbf16>
// CHECK: %[[BITS:.*]] = vector.bitcast %[[PAIR]] : vector<2xbf16> to vector<1xi32>
// CHECK: %[[A0:.*]] = vector.extract %[[BITS]][0] : i32 from vector<1xi32>
// CHECK: %[[MMA:.*]] = nvvm.mma.sync A[%[[A0]], %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%[[S0]], %[[S1]], %[[S2]], %[[S3]]]
// CHECK-SAME: layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
// CHECK-SAME: multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>
// CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK: llvm.extractvalue %[[MMA]][3]
// CHECK: memref.store
// CHECK: gpu.barrier
func.func @tc_bf16(%a: memref<32x64xbf16, #gpu.address_space<workgroup>>, %b: memref<64x16xbf16, #gpu.address_space<workgroup>>, %c: memref<32x16xf32, #gpu.address_space<workgroup>>) attributes {tile.kernel, tile.num_threads = 128 : i64} {
  linalg.matmul ins(%a, %b : memref<32x64xbf16, #gpu.address_space<workgroup>>, memref<64x16xbf16, #gpu.address_space<workgroup>>) outs(%c : memref<32x16xf32, #gpu.address_space<workgroup>>)
  return
}

// -----

// f16 operands travel as vector<2xf16> registers.
// CHECK-LABEL: gpu.func @tc_f16
// CHECK-NOT: vector.bitcast
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}]
// CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-SAME: (vector<2xf16>, vector<2xf16>, f32)
func.func @tc_f16(%a: memref<16x16xf16, #gpu.address_space<workgroup>>, %b: memref<16x8xf16, #gpu.address_space<workgroup>>, %c: memref<16x8xf32, #gpu.address_space<workgroup>>) attributes {tile.kernel, tile.num_threads = 32 : i64} {
  linalg.matmul ins(%a, %b : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>>) outs(%c : memref<16x8xf32, #gpu.address_space<workgroup>>)
  return
}

// -----

// 16-bit operands with K not a multiple of 16 stay on CUDA cores.
// CHECK-LABEL: gpu.func @bf16_k8
// CHECK-NOT: nvvm.mma.sync
// CHECK: arith.extf
// CHECK: arith.mulf
func.func @bf16_k8(%a: memref<16x8xbf16>, %b: memref<8x8xbf16>, %c: memref<16x8xf32>) attributes {tile.kernel, tile.num_threads = 32 : i64} {
  linalg.matmul ins(%a, %b : memref<16x8xbf16>, memref<8x8xbf16>) outs(%c : memref<16x8xf32>)
  return
}
