// RUN: kda-opt %s --convert-kda-to-tile="exact-diagonal-rows" --canonicalize --cse | FileCheck %s

// kda.intra_diag, exact path by key rows (exact-diagonal-rows), over the
// lower triangle only: per sub-chunk, [8, BK] tiles of q, k and G at its
// top rows and at its bottom rows, then two scf.for over the key rows j: the
// first (j < min(n, 8)) carries the four [8, 16] sums of both halves, the
// second (j from there to n) only the bottom half's two, as no top row is
// at or below a key row j >= 8. The halves are masked (tril0 for Aqk,
// tril-1 for Akk, rows < n), scaled and stored one after the other.

// CHECK-LABEL: func.func @intra_diag_bf16_intra_diag_0
// CHECK-SAME: (%[[Q:[^:]*]]: memref<?x?x2x64xbf16>, %[[K:[^:]*]]: memref<?x?x2x64xbf16>, %[[G:[^:]*]]: memref<?x?x4x64xf32>, %[[BETA:[^:]*]]: memref<?x?x4xf32>, %[[AQK:[^:]*]]: memref<?x?x4x64xbf16>, %[[AKKD:[^:]*]]: memref<?x?x4x16xf32>)
// CHECK-NOT: tensor<16x
// CHECK: tile.load %[[Q]][{{.*}}] dims [1, 3] : memref<?x?x2x64xbf16> -> tensor<8x64xbf16>
// CHECK: tile.load %[[G]][{{.*}}] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<8x64xf32>
// CHECK: tile.load %[[Q]][{{.*}}] dims [1, 3] : memref<?x?x2x64xbf16> -> tensor<8x64xbf16>
// CHECK: tile.load %[[G]][{{.*}}] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<8x64xf32>
// CHECK: %[[SPLIT:.*]] = arith.minsi %[[N:.*]], %c8 : index
// CHECK: %[[PAIRS:.*]]:4 = scf.for %{{.*}} = %c0 to %[[SPLIT]] step %c1 iter_args({{.*}}) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
// CHECK-COUNT-4: tile.reduce add %{{.*}} dim 1 : tensor<8x64xf32> -> tensor<8xf32>
// CHECK: scf.yield
// CHECK: %[[LOWER:.*]]:2 = scf.for %{{.*}} = %[[SPLIT]] to %[[N]] step %c1 iter_args(%{{.*}} = %[[PAIRS]]#2, %{{.*}} = %[[PAIRS]]#3) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
// CHECK-COUNT-2: tile.reduce add %{{.*}} dim 1 : tensor<8x64xf32> -> tensor<8xf32>
// CHECK-NOT: tile.reduce
// CHECK: scf.yield
// CHECK: tile.load %[[BETA]][{{.*}}] dims [1] : memref<?x?x4xf32> -> tensor<8xf32>
// CHECK: tile.store %{{.*}}, %[[AQK]][{{.*}}] dims [1, 3] : tensor<8x16xbf16>, memref<?x?x4x64xbf16>
// CHECK: tile.store %{{.*}}, %[[AKKD]][{{.*}}] dims [1, 3] : tensor<8x16xf32>, memref<?x?x4x16xf32>
// CHECK: tile.load %[[BETA]][{{.*}}] dims [1] : memref<?x?x4xf32> -> tensor<8xf32>
// CHECK: tile.store %{{.*}}, %[[AQK]][{{.*}}] dims [1, 3] : tensor<8x16xbf16>, memref<?x?x4x64xbf16>
// CHECK: tile.store %{{.*}}, %[[AKKD]][{{.*}}] dims [1, 3] : tensor<8x16xf32>, memref<?x?x4x16xf32>
// CHECK-NOT: tensor<16x
// CHECK: return

func.func @intra_diag_bf16(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>,
                           %G: tensor<?x?x4x64xf32>, %beta: tensor<?x?x4xf32>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.125 : f32}
      : (tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x4x64xf32>, tensor<?x?x4xf32>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>
}
