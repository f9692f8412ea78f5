// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu | FileCheck %s

// A matmul on tf32-rounded operands (tile.tf32) with a 16x8x8-divisible
// shape runs on tensor cores: warps take 16x8 output tiles in turn and
// accumulate over K in registers with mma.sync m16n8k8. A, in shared
// memory with 16-byte rows, comes by ldmatrix (its four 8x8 blocks of
// 16-bit halves are 8 rows of 4 f32 each: a0..a3); B, in global memory,
// element by element.

// CHECK-LABEL: gpu.func @tc
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK: scf.for %{{.*}} = %[[WARP]] to %{{.*}} step %{{.*}} {
// CHECK: %[[ACC:.*]] = vector.from_elements {{.*}} : vector<2x2xf32>
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[SUM:.*]] = %[[ACC]]) -> (vector<2x2xf32>) {
// CHECK: %[[A:.*]] = nvgpu.ldmatrix %arg0[{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<16x32xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
// CHECK: %[[B:.*]] = vector.from_elements {{.*}} : vector<2x1xf32>
// CHECK: nvgpu.mma.sync(%[[A]], %[[B]], %[[SUM]]) {mmaShape = [16, 8, 8], tf32Enabled}
// CHECK: vector.extract %[[R]][1, 1] : f32 from vector<2x2xf32>
// CHECK: memref.store
// CHECK: gpu.barrier
func.func @tc(%a: memref<16x32xf32, #gpu.address_space<workgroup>>, %b: memref<32x32xf32>, %c: memref<16x32xf32, #gpu.address_space<workgroup>>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
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
// f32). The fragments come from ldmatrix: A's 16x16 block as four 8x8
// blocks (lane l gives row l % 8 of block l / 8: blocks 0-3 are rows 0-7
// and 8-15 at columns k..k+7, then at k+8..k+15), B's 16x8 block as two
// transposed 8x8 blocks (k rows 0-7 and 8-15). Each register packs two
// consecutive bf16 elements (the first in the low half) as an i32.
// CHECK-LABEL: gpu.func @tc_bf16
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK: scf.for %{{.*}} = %[[WARP]] to %{{.*}} step %{{.*}} {
// CHECK: %[[C0:.*]] = memref.load %{{.*}} : memref<32x16xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c16{{.*}} iter_args(%[[S0:.*]] = %[[C0]], %[[S1:.*]] = %{{.*}}, %[[S2:.*]] = %{{.*}}, %[[S3:.*]] = %{{.*}}) -> (f32, f32, f32, f32) {
// CHECK: %[[AF:.*]] = nvgpu.ldmatrix %arg0[%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<32x48xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK: %[[A0V:.*]] = vector.extract %[[AF]][0] : vector<2xbf16> from vector<4x2xbf16>
// CHECK: %[[BITS:.*]] = vector.bitcast %[[A0V]] : vector<2xbf16> to vector<1xi32>
// CHECK: %[[A0:.*]] = vector.extract %[[BITS]][0] : i32 from vector<1xi32>
// CHECK: %[[BF:.*]] = nvgpu.ldmatrix %arg1[%{{.*}}, %{{.*}}] {numTiles = 2 : i32, transpose = true} : memref<48x16xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
// CHECK: %[[MMA:.*]] = nvvm.mma.sync A[%[[A0]], %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%[[S0]], %[[S1]], %[[S2]], %[[S3]]]
// CHECK-SAME: layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
// CHECK-SAME: multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>
// CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK: llvm.extractvalue %[[MMA]][3]
// CHECK: memref.store
// CHECK: gpu.barrier
func.func @tc_bf16(%a: memref<32x48xbf16, #gpu.address_space<workgroup>>, %b: memref<48x16xbf16, #gpu.address_space<workgroup>>, %c: memref<32x16xf32, #gpu.address_space<workgroup>>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  linalg.matmul ins(%a, %b : memref<32x48xbf16, #gpu.address_space<workgroup>>, memref<48x16xbf16, #gpu.address_space<workgroup>>) outs(%c : memref<32x16xf32, #gpu.address_space<workgroup>>)
  return
}

// -----

// With at most 4 accumulator tiles per warp and K a multiple of 32, the K
// loop steps by 32 and runs two sets of accumulators on alternate K steps
// of 16 (the second set from zero), so that consecutive mma.sync do not
// wait on each other's registers; the two sets are added after the loop.
// CHECK-LABEL: gpu.func @tc_bf16_split_k
// CHECK: %[[C0:.*]] = memref.load %{{.*}} : memref<32x16xf32, #gpu.address_space<workgroup>>
// CHECK: %[[R:.*]]:8 = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c32{{.*}} iter_args(%[[S0:.*]] = %[[C0]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[T0:.*]] = %[[ZERO:.*]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]]) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK: nvgpu.ldmatrix %arg0[%{{.*}}, %{{.*}}]
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[%[[S0]], {{.*}}]
// CHECK: %[[K16:.*]] = arith.addi %[[K]], %c16
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[%[[T0]], {{.*}}]
// CHECK: scf.yield
// CHECK: %[[SUM:.*]] = arith.addf %[[R]]#0, %[[R]]#4 : f32
// CHECK: memref.store %[[SUM]]
func.func @tc_bf16_split_k(%a: memref<32x64xbf16, #gpu.address_space<workgroup>>, %b: memref<64x16xbf16, #gpu.address_space<workgroup>>, %c: memref<32x16xf32, #gpu.address_space<workgroup>>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
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
func.func @tc_f16(%a: memref<16x16xf16, #gpu.address_space<workgroup>>, %b: memref<16x8xf16, #gpu.address_space<workgroup>>, %c: memref<16x8xf32, #gpu.address_space<workgroup>>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  linalg.matmul ins(%a, %b : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>>) outs(%c : memref<16x8xf32, #gpu.address_space<workgroup>>)
  return
}

// -----

// 16-bit operands with K not a multiple of 16 stay on CUDA cores.
// CHECK-LABEL: gpu.func @bf16_k8
// CHECK-NOT: nvvm.mma.sync
// CHECK: arith.extf
// CHECK: arith.mulf
func.func @bf16_k8(%a: memref<16x8xbf16>, %b: memref<8x8xbf16>, %c: memref<16x8xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  linalg.matmul ins(%a, %b : memref<16x8xbf16>, memref<8x8xbf16>) outs(%c : memref<16x8xf32>)
  return
}

// -----

// Rows that do not start on 16-byte boundaries (A's row stride of 20
// bf16) rule out ldmatrix for that operand: its registers are packed from
// scalar loads, A rows g and g+8 at columns k+2t, k+2t+1 (and +8); B still
// comes from ldmatrix. One warp and an output 32 wide: the warp takes a 16x32 strip,
// four mma.sync per K step on one A fragment.
// CHECK-LABEL: gpu.func @unaligned_rows
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK: %[[LO:.*]] = memref.load %arg0[%{{.*}}, %{{.*}}] : memref<16x16xbf16, strided<[20, 1]>, #gpu.address_space<workgroup>>
// CHECK: %[[HI:.*]] = memref.load %arg0[%{{.*}}, %{{.*}}] : memref<16x16xbf16, strided<[20, 1]>, #gpu.address_space<workgroup>>
// CHECK: vector.from_elements %[[LO]], %[[HI]] : vector<2xbf16>
// CHECK: nvgpu.ldmatrix %arg1{{.*}} {numTiles = 2 : i32, transpose = true}
// CHECK-COUNT-4: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.barrier
func.func @unaligned_rows(%a: memref<16x16xbf16, strided<[20, 1]>, #gpu.address_space<workgroup>>, %b: memref<16x32xbf16, #gpu.address_space<workgroup>>, %c: memref<16x32xf32, #gpu.address_space<workgroup>>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  linalg.matmul ins(%a, %b : memref<16x16xbf16, strided<[20, 1]>, #gpu.address_space<workgroup>>, memref<16x32xbf16, #gpu.address_space<workgroup>>) outs(%c : memref<16x32xf32, #gpu.address_space<workgroup>>)
  return
}

// -----

// Operands held transposed (A^T [k, m], B^T [n, k], read through
// transposed maps, as convert-tile-to-linalg emits for a dot of tile.trans
// results) load their fragments in place: A^T's 8x8 blocks with
// ldmatrix.trans (lane l addresses k row l % 8 of block l / 8), B^T's with
// plain ldmatrix (its rows are B's columns).
// CHECK-LABEL: gpu.func @transposed_bf16
// CHECK: nvgpu.ldmatrix %arg0[%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<32x16xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK: nvgpu.ldmatrix %arg1[%{{.*}}, %{{.*}}] {numTiles = 2 : i32, transpose = false} : memref<8x32xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
// CHECK: nvvm.mma.sync
// CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
func.func @transposed_bf16(%at: memref<32x16xbf16, #gpu.address_space<workgroup>>, %bt: memref<8x32xbf16, #gpu.address_space<workgroup>>, %c: memref<16x8xf32, #gpu.address_space<workgroup>>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%at, %bt : memref<32x16xbf16, #gpu.address_space<workgroup>>, memref<8x32xbf16, #gpu.address_space<workgroup>>) outs(%c : memref<16x8xf32, #gpu.address_space<workgroup>>)
  return
}

// -----

// tf32 with B held transposed: b0 = B[t][g] is B^T[g][t], b1 = B^T[g][t+4]:
// B^T's two 8x8 blocks of 16-bit halves (n 0-7, k 0-3 and k 4-7) read by
// ldmatrix as they are, lane l addressing row l % 8 at k + 4 ((l / 8) mod 2).
// CHECK-LABEL: gpu.func @transposed_tf32
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// CHECK: %[[QUAD:.*]] = arith.divui %[[LANE]], %c8
// CHECK: arith.remui %[[LANE]], %c8
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %c8{{.*}} step %c8
// CHECK: nvgpu.ldmatrix %arg0[{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<16x8xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
// CHECK: nvgpu.ldmatrix %arg1[{{.*}}] {numTiles = 2 : i32, transpose = false} : memref<8x8xf32, #gpu.address_space<workgroup>> -> vector<2x1xf32>
// CHECK: nvgpu.mma.sync
func.func @transposed_tf32(%a: memref<16x8xf32, #gpu.address_space<workgroup>>, %bt: memref<8x8xf32, #gpu.address_space<workgroup>>, %c: memref<16x8xf32, #gpu.address_space<workgroup>>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tile.tf32}
      ins(%a, %bt : memref<16x8xf32, #gpu.address_space<workgroup>>, memref<8x8xf32, #gpu.address_space<workgroup>>) outs(%c : memref<16x8xf32, #gpu.address_space<workgroup>>)
  return
}

// -----

// 64x64 over four warps: each warp takes a 32 x 32 tile (two 16-row
// strips of four 8-column tiles), so a K step loads two A fragments and
// four B fragments for eight mma.sync, and the tile's 32 accumulators stay
// in registers across K.
// CHECK-LABEL: gpu.func @warp_tile_32x32
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4{{.*}} step %c4{{.*}} {
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-COUNT-2: nvgpu.ldmatrix %arg0{{.*}}numTiles = 4 : i32, transpose = false
// CHECK-COUNT-4: nvgpu.ldmatrix %arg1{{.*}}numTiles = 2 : i32, transpose = true
// CHECK-COUNT-8: nvvm.mma.sync
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: scf.yield
func.func @warp_tile_32x32(%a: memref<64x64xbf16, #gpu.address_space<workgroup>>, %b: memref<64x64xbf16, #gpu.address_space<workgroup>>, %c: memref<64x64xf32, #gpu.address_space<workgroup>>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  linalg.matmul ins(%a, %b : memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<64x64xbf16, #gpu.address_space<workgroup>>) outs(%c : memref<64x64xf32, #gpu.address_space<workgroup>>)
  return
}

// -----

// An accumulator zero-filled right before its matmul (nothing in between
// touches it) starts from zero registers: the fill is gone and nothing
// loads the accumulator; the mma results are stored as before.
// CHECK-LABEL: gpu.func @zero_accumulator
// CHECK-NOT: memref.load %arg2
// CHECK: scf.for %{{.*}} {
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]]) -> (f32, f32, f32, f32)
// CHECK: nvvm.mma.sync
// CHECK: memref.store %{{.*}}, %arg2
func.func @zero_accumulator(%a: memref<16x16xbf16, #gpu.address_space<workgroup>>, %b: memref<16x8xbf16, #gpu.address_space<workgroup>>, %c: memref<16x8xf32, #gpu.address_space<workgroup>>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<16x8xf32, #gpu.address_space<workgroup>>)
  linalg.matmul ins(%a, %b : memref<16x16xbf16, #gpu.address_space<workgroup>>, memref<16x8xbf16, #gpu.address_space<workgroup>>) outs(%c : memref<16x8xf32, #gpu.address_space<workgroup>>)
  return
}

// -----

// When an op between the fill and the matmul reads the accumulator, the
// fill stays and the matmul loads it.
// CHECK-LABEL: gpu.func @zero_accumulator_read_between
// CHECK: vector.store %{{.*}}, %arg2
// CHECK: vector.load %arg2
// CHECK: memref.load %arg2
// CHECK: nvvm.mma.sync
func.func @zero_accumulator_read_between(%a: memref<16x16xbf16, #gpu.address_space<workgroup>>, %b: memref<16x8xbf16, #gpu.address_space<workgroup>>, %c: memref<16x8xf32, #gpu.address_space<workgroup>>, %d: memref<16x8xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<16x8xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%c : memref<16x8xf32, #gpu.address_space<workgroup>>) outs(%d : memref<16x8xf32>)
  linalg.matmul ins(%a, %b : memref<16x16xbf16, #gpu.address_space<workgroup>>, memref<16x8xbf16, #gpu.address_space<workgroup>>) outs(%c : memref<16x8xf32, #gpu.address_space<workgroup>>)
  return
}

// -----

// tf32 operands that ldmatrix cannot read (global memory, or A held
// transposed: ldmatrix transposes 16-bit elements, not 32-bit ones) are
// loaded element by element: a0 = A[g][t] from A^T[t][g].
// CHECK-LABEL: gpu.func @tf32_elementwise_fragments
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// CHECK: %[[G:.*]] = arith.divui %[[LANE]], %c4
// CHECK: %[[T:.*]] = arith.remui %[[LANE]], %c4
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %c8{{.*}} step %c8
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: %[[KT:.*]] = arith.addi %[[K]], %[[T]]
// CHECK: memref.load %arg0[%[[KT]], %{{.*}}] : memref<8x16xf32, #gpu.address_space<workgroup>>
// CHECK: vector.from_elements {{.*}} : vector<4x1xf32>
// CHECK: memref.load %arg1[%[[KT]], %{{.*}}] : memref<8x8xf32>
// CHECK: vector.from_elements {{.*}} : vector<2x1xf32>
// CHECK: nvgpu.mma.sync
func.func @tf32_elementwise_fragments(%at: memref<8x16xf32, #gpu.address_space<workgroup>>, %b: memref<8x8xf32>, %c: memref<16x8xf32, #gpu.address_space<workgroup>>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] {tile.tf32}
      ins(%at, %b : memref<8x16xf32, #gpu.address_space<workgroup>>, memref<8x8xf32>) outs(%c : memref<16x8xf32, #gpu.address_space<workgroup>>)
  return
}
