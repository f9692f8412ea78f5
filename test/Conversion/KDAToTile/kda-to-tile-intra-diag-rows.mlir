// RUN: kda-opt %s --convert-kda-to-tile="exact-diagonal-rows" --canonicalize --cse | FileCheck %s

// kda.intra_diag, exact path with exact-diagonal-rows: per sub-chunk, the
// [16, BK] tiles of q, k and G at its rows, then an scf.for over its valid
// key rows j carrying the two [16, 16] sums: row j of k and G broadcast
// along the rows, 2^(G_i - G_j) times k_j, times q_i and k_i, summed along
// K, broadcast along the columns and kept in column j (and n > i >= j)
// only. No tile of rank 3 (kda-to-tile-intra-diag.mlir has the pairwise
// form's [BK, 16, 16] tiles).

// CHECK-LABEL: func.func @intra_diag_bf16_intra_diag_0
// CHECK-SAME: (%[[Q:[^:]*]]: memref<?x?x2x64xbf16>, %[[K:[^:]*]]: memref<?x?x2x64xbf16>, %[[G:[^:]*]]: memref<?x?x4x64xf32>,
// CHECK-NOT: x16x16xf32>
// CHECK: %[[QR:.*]] = tile.load %[[Q]][{{.*}}] dims [1, 3] : memref<?x?x2x64xbf16> -> tensor<16x64xbf16>
// CHECK: %[[KR:.*]] = tile.load %[[K]][{{.*}}] dims [1, 3] : memref<?x?x2x64xbf16> -> tensor<16x64xbf16>
// CHECK: %[[GR:.*]] = tile.load %[[G]][{{.*}}] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<16x64xf32>
// CHECK: %[[SUMS:.*]]:2 = scf.for %[[J:.*]] = %{{.*}} to %[[N:.*]] step %{{.*}} iter_args(%[[SQK:.*]] = %{{.*}}, %[[SKK:.*]] = %{{.*}}) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
// CHECK: %[[KJ:.*]] = tile.load %[[K]][{{.*}}] bounds [%{{.*}}] dims [3] : memref<?x?x2x64xbf16> -> tensor<64xbf16>
// CHECK: tile.broadcast %{{.*}} dims [0] : tensor<64xf32> -> tensor<16x64xf32>
// CHECK: %[[GJ:.*]] = tile.load %[[G]][{{.*}}] bounds [%{{.*}}] dims [3] : memref<?x?x4x64xf32> -> tensor<64xf32>
// CHECK: %[[GJB:.*]] = tile.broadcast %[[GJ]] dims [0] : tensor<64xf32> -> tensor<16x64xf32>
// CHECK: %[[DIFF:.*]] = arith.subf %{{.*}}, %[[GJB]] : tensor<16x64xf32>
// CHECK: math.exp2 %[[DIFF]] : tensor<16x64xf32>
// CHECK: %[[COL:.*]] = tile.iota dim 1 : tensor<16x16xi32>
// CHECK: arith.cmpi eq, %[[COL]], %{{.*}} : tensor<16x16xi32>
// CHECK: tile.reduce add %{{.*}} dim 1 : tensor<16x64xf32> -> tensor<16xf32>
// CHECK: tile.broadcast %{{.*}} dims [1] : tensor<16xf32> -> tensor<16x16xf32>
// CHECK: tile.reduce add %{{.*}} dim 1 : tensor<16x64xf32> -> tensor<16xf32>
// CHECK: scf.yield %{{.*}}, %{{.*}} : tensor<16x16xf32>, tensor<16x16xf32>
// CHECK-NOT: x16x16xf32>
// CHECK: return
func.func @intra_diag_bf16(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>,
                           %G: tensor<?x?x4x64xf32>, %beta: tensor<?x?x4xf32>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.125 : f32}
      : (tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x4x64xf32>, tensor<?x?x4xf32>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>
}
