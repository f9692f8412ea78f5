// RUN: kda-opt %s --convert-kda-to-tile="exact-diagonal-quarters" --canonicalize --cse | FileCheck %s
// RUN: kda-opt %s --convert-kda-to-tile --canonicalize --cse | FileCheck %s --check-prefix=WHOLE

// kda.intra_diag, exact path with exact-diagonal-quarters: one program per (chunk, batch x value head)
// along x; an scf.for over the sub-chunks that have rows, min(4, ceil(rows
// left / 16)), and in it an scf.for over K tiles of up to 128 columns
// (folded away here: K = 64 is one tile). Each 16 x 16 block in [8, 8]
// quarters: in the two diagonal ones, over the [BK, 8, 8] space of columns
// and row pairs (operands transposed to [BK, 8]), the pairwise decays
// 2^(G_i - G_j) of the rows n > i >= j times q_i k_j and k_i k_j, summed
// along K; the bottom-left one through the gate of row 8 (exponentials per
// row, [BK, 8], not per pair); the top-right one is zeros. Then the masks,
// scale, beta and the stores of the quarters of the Aqk diagonal block and
// of all 16 columns of Akkd. Without the option, the whole [BK, 16, 16]
// block (kda-to-tile-intra-diag.mlir).

// WHOLE: math.exp2 %{{.*}} : tensor<64x16x16xf32>
// WHOLE-NOT: tensor<64x8x8xf32>

// CHECK-LABEL: func.func @intra_diag
// CHECK-SAME: (%[[Q:[^:]*]]: memref<?x?x2x64xbf16>, %[[K:[^:]*]]: memref<?x?x2x64xbf16>, %[[G:[^:]*]]: memref<?x?x4x64xf32>, %[[BETA:[^:]*]]: memref<?x?x4xf32>, %[[AQK:[^:]*]]: memref<?x?x4x64xbf16>, %[[AKKD:[^:]*]]: memref<?x?x4x16xf32>)
// CHECK-SAME: kda.arg_dims = ["B,T,2,64", "B,T,2,64", "B,T,4,64", "B,T,4", "B,T,4,64", "B,T,4,16"]
// CHECK-SAME: kda.arg_names = ["q", "k", "G", "beta", "Aqk", "Akkd"]
// CHECK-SAME: kda.key = {H = "2", HV = "4", K = "64", chunk = "64", partial = "Aqk", program = "intra_diag", safe_gate = "0", scale = "0.125", varlen = "0"}, kda.num_inputs = 4 : i64}
// CHECK-DAG: %[[T:.*]] = memref.dim %[[G]], %{{.*}} : memref<?x?x4x64xf32>
// CHECK-DAG: %[[NT:.*]] = arith.ceildivui %[[T]], %{{.*}} : index
// CHECK-DAG: %[[B:.*]] = memref.dim %[[G]], %{{.*}} : memref<?x?x4x64xf32>
// CHECK-DAG: %[[NBH:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: %[[N:.*]] = arith.muli %[[NT]], %[[NBH]] : index
// CHECK: tile.launch @intra_diag_intra_diag_0 grid [%[[N]], %{{.*}}, %{{.*}}] args(%[[Q]], %[[K]], %[[G]], %[[BETA]], %[[AQK]], %[[AKKD]] :
// CHECK-SAME: {tile.partition = "chunks64"}
// CHECK-NEXT: return

// CHECK: func.func @intra_diag_intra_diag_0(%[[KQ:[^:]*]]: memref<?x?x2x64xbf16>, %[[KK:[^:]*]]: memref<?x?x2x64xbf16>, %[[KG:[^:]*]]: memref<?x?x4x64xf32>, %[[KB:[^:]*]]: memref<?x?x4xf32>, %[[KA:[^:]*]]: memref<?x?x4x64xbf16>, %[[KD:[^:]*]]: memref<?x?x4x16xf32>)
// CHECK-SAME: attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, block_k = 64, hoist_addresses = true>}
// Heads fastest: pid = chunk * (B * HV) + bh.
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[CHUNK:.*]] = arith.divui %[[PID]], %{{.*}} : index
// CHECK: %[[BH:.*]] = arith.remui %[[PID]], %{{.*}} : index
// CHECK-DAG: %[[BATCH:.*]] = arith.divui %[[BH]], %[[C4:.*]] : index
// CHECK-DAG: %[[HV:.*]] = arith.remui %[[BH]], %[[C4]] : index
// Grouped value heads: q/k head = hv / (HV / H).
// CHECK-DAG: %[[H:.*]] = arith.divui %[[HV]], %[[C2:.*]] : index
// CHECK: %[[ROW0:.*]] = arith.muli %[[CHUNK]], %{{.*}} : index
// CHECK: %[[VALID:.*]] = arith.cmpi slt, %[[ROW0]], %[[TK:.*]] : index
// CHECK: scf.if %[[VALID]] {
// CHECK: %[[CLEFT:.*]] = arith.subi %[[TK]], %[[ROW0]] : index
// CHECK: %[[NSUB:.*]] = arith.ceildivui %[[CLEFT]], %{{.*}} : index
// CHECK: %[[CNT:.*]] = arith.minsi %[[NSUB]], %{{.*}} : index
// CHECK: scf.for %[[S:.*]] = %{{.*}} to %[[CNT]] step %{{.*}} {
// CHECK: %[[SCOL:.*]] = arith.muli %[[S]], %{{.*}} : index
// CHECK: %[[SROW:.*]] = arith.addi %[[ROW0]], %[[SCOL]] : index
// n = min(16, rows left) valid rows in the sub-chunk.
// CHECK: %[[LEFT:.*]] = arith.subi %[[TK]], %[[SROW]] : index
// CHECK: %[[NR:.*]] = arith.minsi %[[LEFT]], %{{.*}} : index
// K = 64 fits one K tile (up to 128 columns): no K loop.
// CHECK-NOT: scf.for
// The top rows [s0, s0 + 8) and the bottom rows [s0 + 8, s0 + 16) of q, k, G.
// CHECK: %[[MID:.*]] = arith.addi %[[SROW]], %[[C8:.*]] : index
// CHECK: tile.load %[[KQ]][%[[BATCH]], %[[SROW]], %[[H]], %c0] bounds [%[[TK]], %{{.*}}] dims [1, 3] : memref<?x?x2x64xbf16> -> tensor<8x64xbf16>
// CHECK: tile.load %[[KQ]][%[[BATCH]], %[[MID]], %[[H]], %c0] bounds [%[[TK]], %{{.*}}] dims [1, 3] : memref<?x?x2x64xbf16> -> tensor<8x64xbf16>
// CHECK: tile.load %[[KK]][%[[BATCH]], %[[SROW]], %[[H]], %c0] bounds [%[[TK]], %{{.*}}] dims [1, 3] : memref<?x?x2x64xbf16> -> tensor<8x64xbf16>
// CHECK: tile.load %[[KK]][%[[BATCH]], %[[MID]], %[[H]], %c0] bounds [%[[TK]], %{{.*}}] dims [1, 3] : memref<?x?x2x64xbf16> -> tensor<8x64xbf16>
// CHECK: %[[GTOP:.*]] = tile.load %[[KG]][%[[BATCH]], %[[SROW]], %[[HV]], %c0] bounds [%[[TK]], %{{.*}}] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<8x64xf32>
// CHECK: %[[GTT:.*]] = tile.trans %[[GTOP]] : tensor<8x64xf32> -> tensor<64x8xf32>
// CHECK: %[[GBOT:.*]] = tile.load %[[KG]][%[[BATCH]], %[[MID]], %[[HV]], %c0] bounds [%[[TK]], %{{.*}}] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<8x64xf32>
// CHECK: %[[GBT:.*]] = tile.trans %[[GBOT]] : tensor<8x64xf32> -> tensor<64x8xf32>
// The top-left quarter: over (d, i, j) the decays 2^(G_i - G_j) multiply
// q_i k_j and k_i k_j, summed along d.
// CHECK: %[[GJ:.*]] = tile.broadcast %[[GTT]] dims [1] : tensor<64x8xf32> -> tensor<64x8x8xf32>
// CHECK: %[[GI:.*]] = tile.broadcast %[[GTT]] dims [2] : tensor<64x8xf32> -> tensor<64x8x8xf32>
// CHECK: %[[DG:.*]] = arith.subf %[[GI]], %[[GJ]] : tensor<64x8x8xf32>
// CHECK: %[[E:.*]] = math.exp2 %[[DG]] : tensor<64x8x8xf32>
// CHECK: %[[KE:.*]] = arith.mulf %{{.*}}, %[[E]] : tensor<64x8x8xf32>
// CHECK-NOT: arith.select
// CHECK: arith.mulf %{{.*}}, %[[KE]] : tensor<64x8x8xf32>
// CHECK: %[[TLQK:.*]] = tile.reduce add %{{.*}} dim 0 : tensor<64x8x8xf32> -> tensor<8x8xf32>
// CHECK: arith.mulf %{{.*}}, %[[KE]] : tensor<64x8x8xf32>
// CHECK: %[[TLKK:.*]] = tile.reduce add %{{.*}} dim 0 : tensor<64x8x8xf32> -> tensor<8x8xf32>
// The bottom-right quarter likewise.
// CHECK: %[[GJB:.*]] = tile.broadcast %[[GBT]] dims [1] : tensor<64x8xf32> -> tensor<64x8x8xf32>
// CHECK: %[[GIB:.*]] = tile.broadcast %[[GBT]] dims [2] : tensor<64x8xf32> -> tensor<64x8x8xf32>
// CHECK: arith.subf %[[GIB]], %[[GJB]] : tensor<64x8x8xf32>
// CHECK: math.exp2 %{{.*}} : tensor<64x8x8xf32>
// CHECK: %[[BRQK:.*]] = tile.reduce add %{{.*}} dim 0 : tensor<64x8x8xf32> -> tensor<8x8xf32>
// CHECK: %[[BRKK:.*]] = tile.reduce add %{{.*}} dim 0 : tensor<64x8x8xf32> -> tensor<8x8xf32>
// The bottom-left quarter through G of row m = min(s0 + 8, T - 1):
// 2^(G_i - G_m) for the bottom rows, 2^(G_m - G_j) for the top ones, no
// exponential per pair.
// CHECK: %[[LASTROW:.*]] = arith.subi %[[TK]], %{{.*}} : index
// CHECK: %[[MROW:.*]] = arith.minsi %[[MID]], %[[LASTROW]] : index
// CHECK: %[[GM:.*]] = tile.load %[[KG]][%[[BATCH]], %[[MROW]], %[[HV]], %c0] bounds [%{{.*}}] dims [3] : memref<?x?x4x64xf32> -> tensor<64xf32>
// CHECK: %[[GMB:.*]] = tile.broadcast %[[GM]] dims [1] : tensor<64xf32> -> tensor<64x8xf32>
// CHECK: %[[UPX:.*]] = arith.subf %[[GBT]], %[[GMB]] : tensor<64x8xf32>
// CHECK: %[[UP:.*]] = math.exp2 %[[UPX]] : tensor<64x8xf32>
// CHECK: %[[DOWNX:.*]] = arith.subf %[[GMB]], %[[GTT]] : tensor<64x8xf32>
// CHECK: %[[DOWN:.*]] = math.exp2 %[[DOWNX]] : tensor<64x8xf32>
// CHECK-NOT: math.exp2
// CHECK: %[[BLQK:.*]] = tile.reduce add %{{.*}} dim 0 : tensor<64x8x8xf32> -> tensor<8x8xf32>
// CHECK: %[[BLKK:.*]] = tile.reduce add %{{.*}} dim 0 : tensor<64x8x8xf32> -> tensor<8x8xf32>
// Rows i < n of the top quarters, i < n - 8 of the bottom ones; pairs i >= j
// of the diagonal quarters (one select per pair, not per column).
// CHECK: %[[NB:.*]] = arith.subi %[[NR]], %[[C8]] : index
// CHECK: %[[TRI:.*]] = tile.tri_mask lower diagonal 0 : tensor<8x8xi1>
// CHECK: arith.select %{{.*}}, %[[TLQK]], %{{.*}} : tensor<8x8xi1>, tensor<8x8xf32>
// CHECK: arith.select %{{.*}}, %[[TLKK]], %{{.*}} : tensor<8x8xi1>, tensor<8x8xf32>
// CHECK: arith.select %{{.*}}, %[[BRQK]], %{{.*}} : tensor<8x8xi1>, tensor<8x8xf32>
// CHECK: arith.select %{{.*}}, %[[BRKK]], %{{.*}} : tensor<8x8xi1>, tensor<8x8xf32>
// CHECK: arith.select %{{.*}}, %[[BLQK]], %{{.*}} : tensor<8x8xi1>, tensor<8x8xf32>
// CHECK: arith.select %{{.*}}, %[[BLKK]], %{{.*}} : tensor<8x8xi1>, tensor<8x8xf32>
// No tensor-core dot on the exact path.
// CHECK-NOT: tile.dot
// beta of the top and the bottom rows.
// CHECK: tile.load %[[KB]][%[[BATCH]], %[[SROW]], %[[HV]]] bounds [%[[TK]]] dims [1] : memref<?x?x4xf32> -> tensor<8xf32>
// CHECK: tile.load %[[KB]][%[[BATCH]], %[[MID]], %[[HV]]] bounds [%[[TK]]] dims [1] : memref<?x?x4xf32> -> tensor<8xf32>
// Aqk = scale * tril0, quarter by quarter, zeros in the top-right one.
// CHECK: %[[SCOLM:.*]] = arith.addi %[[SCOL]], %[[C8]] : index
// CHECK: arith.select %[[TRI]], %{{.*}}, %{{.*}} : tensor<8x8xi1>, tensor<8x8xf32>
// CHECK: tile.store %{{.*}}, %[[KA]][%[[BATCH]], %[[SROW]], %[[HV]], %[[SCOL]]] bounds [%[[TK]], %{{.*}}] dims [1, 3] : tensor<8x8xbf16>, memref<?x?x4x64xbf16>
// CHECK: tile.store %{{.*}}, %[[KA]][%[[BATCH]], %[[SROW]], %[[HV]], %[[SCOLM]]] bounds [%[[TK]], %{{.*}}] dims [1, 3] : tensor<8x8xbf16>, memref<?x?x4x64xbf16>
// CHECK: tile.store %{{.*}}, %[[KA]][%[[BATCH]], %[[MID]], %[[HV]], %[[SCOL]]] bounds [%[[TK]], %{{.*}}] dims [1, 3] : tensor<8x8xbf16>, memref<?x?x4x64xbf16>
// CHECK: tile.store %{{.*}}, %[[KA]][%[[BATCH]], %[[MID]], %[[HV]], %[[SCOLM]]] bounds [%[[TK]], %{{.*}}] dims [1, 3] : tensor<8x8xbf16>, memref<?x?x4x64xbf16>
// Akk = beta (by rows) * tril-1, the four quarters of Akkd's 16 columns.
// CHECK: tile.tri_mask lower diagonal -1 : tensor<8x8xi1>
// CHECK: tile.store %{{.*}}, %[[KD]][%[[BATCH]], %[[SROW]], %[[HV]], %c0] bounds [%[[TK]], %{{.*}}] dims [1, 3] : tensor<8x8xf32>, memref<?x?x4x16xf32>
// CHECK: tile.store %{{.*}}, %[[KD]][%[[BATCH]], %[[SROW]], %[[HV]], %[[C8]]] bounds [%[[TK]], %{{.*}}] dims [1, 3] : tensor<8x8xf32>, memref<?x?x4x16xf32>
// CHECK: tile.store %{{.*}}, %[[KD]][%[[BATCH]], %[[MID]], %[[HV]], %c0] bounds [%[[TK]], %{{.*}}] dims [1, 3] : tensor<8x8xf32>, memref<?x?x4x16xf32>
// CHECK: tile.store %{{.*}}, %[[KD]][%[[BATCH]], %[[MID]], %[[HV]], %[[C8]]] bounds [%[[TK]], %{{.*}}] dims [1, 3] : tensor<8x8xf32>, memref<?x?x4x16xf32>
// CHECK-NOT: tile.
// CHECK: return
func.func @intra_diag(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>,
                      %G: tensor<?x?x4x64xf32>, %beta: tensor<?x?x4xf32>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.125 : f32}
      : (tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x4x64xf32>, tensor<?x?x4xf32>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>
}
