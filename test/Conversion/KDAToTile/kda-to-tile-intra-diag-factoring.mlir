// RUN: kda-opt %s --split-input-file --convert-kda-to-tile="exact-diagonal-factoring" --canonicalize --cse | FileCheck %s
// RUN: kda-opt %s --split-input-file --convert-kda-to-tile --canonicalize --cse | FileCheck %s --check-prefix=PAIRWISE
// RUN: kda-opt %s --split-input-file --convert-kda-to-tile="exact-diagonal-factoring exact-diagonal-rows" --canonicalize --cse | FileCheck %s --check-prefix=ROWS

// kda.intra_diag, exact path with exact-diagonal-factoring: per sub-chunk,
// the gate drop max_d (G_s0,d - G_last,d) by a loop of scalar loads, then
// an scf.if on drop <= 64: the decays factored through the reference row
// rho = s0 + min(8, n - 1) (2^(G - G_rho) and 2^(G_rho - G), rows >= n
// zeroed) and two dots, S_kk at tf32x3 (Akkd is f32), S_qk at tf32 for
// 16-bit I/O and tf32x3 for f32 I/O; otherwise (steep gates, NaN) the pairwise [BK, 16, 16] path. Both yield
// the two [16, 16] sums that the masks, scale, beta and stores take.
// Without the option, only the pairwise path (kda-to-tile-intra-diag.mlir).
// With exact-diagonal-rows the fallback is the key-row path in halves of 8
// rows, and each branch of the scf.if (no results) masks, scales and stores
// its own blocks: [16, 16] ones after the dots, [8, 16] halves after the
// key rows.

// ROWS-LABEL: func.func @intra_diag_bf16_intra_diag_0
// ROWS: scf.if %{{.*}} {
// ROWS: tile.dot %{{.*}} precision = tf32 : tensor<16x64xf32>, tensor<64x16xf32> -> tensor<16x16xf32>
// ROWS: tile.dot %{{.*}} precision = tf32x3 : tensor<16x64xf32>, tensor<64x16xf32> -> tensor<16x16xf32>
// ROWS: tile.store %{{.*}} : tensor<16x16xbf16>
// ROWS: tile.store %{{.*}} : tensor<16x16xf32>
// ROWS: } else {
// ROWS: scf.for {{.*}} -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
// ROWS: math.exp2 %{{.*}} : tensor<8x64xf32>
// ROWS: tile.reduce add %{{.*}} dim 1 : tensor<8x64xf32> -> tensor<8xf32>
// ROWS: tile.store %{{.*}} : tensor<8x16xbf16>
// ROWS-NOT: tensor<16x64xf32> -> tensor<16xf32>
// ROWS-NOT: x16x16xf32>

// PAIRWISE-LABEL: func.func @intra_diag_bf16_intra_diag_0
// PAIRWISE-NOT: scf.if {{.*}} -> (tensor<16x16xf32>, tensor<16x16xf32>)
// PAIRWISE-NOT: tile.dot
// PAIRWISE: math.exp2 %{{.*}} : tensor<64x16x16xf32>

// CHECK-LABEL: func.func @intra_diag_bf16_intra_diag_0
// CHECK-SAME: (%{{[^:]*}}: memref<?x?x2x64xbf16>, %{{[^:]*}}: memref<?x?x2x64xbf16>, %[[G:[^:]*]]: memref<?x?x4x64xf32>,
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[ROW0:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[N:.*]] = arith.minsi %{{.*}}, %[[C16:.*]] : index
// CHECK: %[[NM1:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: %[[OFF:.*]] = arith.minsi %[[NM1]], %{{.*}} : index
// CHECK: %[[RHO:.*]] = arith.addi %[[ROW0]], %[[OFF]] : index
// CHECK: %[[LAST:.*]] = arith.addi %[[ROW0]], %[[NM1]] : index
// The gate drop over the K columns.
// CHECK: %[[DROP:.*]] = scf.for %[[D:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[M:.*]] = %{{.*}}) -> (f32) {
// CHECK-DAG: %[[GL:.*]] = memref.load %[[G]][%{{.*}}, %[[LAST]], %{{.*}}, %[[D]]]
// CHECK-DAG: %[[GF:.*]] = memref.load %[[G]][%{{.*}}, %[[ROW0]], %{{.*}}, %[[D]]]
// CHECK: %[[DIFF:.*]] = arith.subf %[[GF]], %[[GL]] : f32
// CHECK: %[[MAX:.*]] = arith.maximumf %[[M]], %[[DIFF]] : f32
// CHECK: scf.yield %[[MAX]] : f32
// CHECK: %[[BOUNDED:.*]] = arith.cmpf ole, %[[DROP]], %{{.*}} : f32
// CHECK: %[[SUMS:.*]]:2 = scf.if %[[BOUNDED]] -> (tensor<16x16xf32>, tensor<16x16xf32>) {
// Factored: G of the reference row, the two rescalings, the two dots.
// CHECK: tile.load %[[G]][%{{.*}}, %[[RHO]], %{{.*}}, %{{.*}}] bounds [%{{.*}}] dims [3] : memref<?x?x4x64xf32> -> tensor<64xf32>
// CHECK: math.exp2 %{{.*}} : tensor<16x64xf32>
// CHECK: math.exp2 %{{.*}} : tensor<16x64xf32>
// CHECK: tile.trans %{{.*}} : tensor<16x64xf32> -> tensor<64x16xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision = tf32 : tensor<16x64xf32>, tensor<64x16xf32> -> tensor<16x16xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision = tf32x3 : tensor<16x64xf32>, tensor<64x16xf32> -> tensor<16x16xf32>
// CHECK: scf.yield
// CHECK: } else {
// Pairwise.
// CHECK: math.exp2 %{{.*}} : tensor<64x16x16xf32>
// CHECK: tile.reduce add %{{.*}} dim 0 : tensor<64x16x16xf32> -> tensor<16x16xf32>
// CHECK: scf.yield
// CHECK: }
// CHECK: tile.tri_mask lower diagonal 0 : tensor<16x16xi1>
// CHECK: tile.store
// CHECK: tile.store
func.func @intra_diag_bf16(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>,
                           %G: tensor<?x?x4x64xf32>, %beta: tensor<?x?x4xf32>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.125 : f32}
      : (tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x4x64xf32>, tensor<?x?x4xf32>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>
}

// -----

// f32 I/O: both factored dots at tf32x3.
// CHECK-LABEL: func.func @intra_diag_f32_intra_diag_0
// CHECK: scf.if %{{.*}} -> (tensor<16x16xf32>, tensor<16x16xf32>) {
// CHECK: tile.dot %{{.*}} precision = tf32x3
// CHECK: tile.dot %{{.*}} precision = tf32x3
// CHECK: } else {
// CHECK: math.exp2 %{{.*}} : tensor<64x16x16xf32>
func.func @intra_diag_f32(%q: tensor<?x?x1x64xf32>, %k: tensor<?x?x1x64xf32>,
                          %G: tensor<?x?x1x64xf32>, %beta: tensor<?x?x1xf32>)
    -> (tensor<?x?x1x64xf32>, tensor<?x?x1x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.125 : f32}
      : (tensor<?x?x1x64xf32>, tensor<?x?x1x64xf32>, tensor<?x?x1x64xf32>, tensor<?x?x1xf32>)
      -> (tensor<?x?x1x64xf32>, tensor<?x?x1x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x1x64xf32>, tensor<?x?x1x16xf32>
}
