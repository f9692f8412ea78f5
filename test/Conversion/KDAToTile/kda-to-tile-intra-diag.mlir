// RUN: kda-opt %s --split-input-file --convert-kda-to-tile --canonicalize --cse | FileCheck %s

// kda.intra_diag, exact path: one program per (chunk, batch x value head)
// along x; an scf.for over the sub-chunks that have rows, min(4, ceil(rows
// left / 16)), and in it an scf.for over K tiles of up to 128 columns
// (folded away here: K = 64 is one tile): over the [BK, 16, 16]
// space of columns and row pairs (operands transposed to [BK, 16]), the pairwise decays 2^(G_i - G_j) of the
// rows n > i >= j times q_i k_j and k_i k_j, summed along K into both
// blocks. Then the masks, scale, beta and the stores of the Aqk
// diagonal block and all 16 columns of Akkd.

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
// CHECK: tile.load %[[KQ]][%[[BATCH]], %[[SROW]], %[[H]], %c0] bounds [%[[TK]], %{{.*}}] dims [1, 3] : memref<?x?x2x64xbf16> -> tensor<16x64xbf16>
// CHECK: tile.load %[[KK]][%[[BATCH]], %[[SROW]], %[[H]], %c0] bounds [%[[TK]], %{{.*}}] dims [1, 3] : memref<?x?x2x64xbf16> -> tensor<16x64xbf16>
// CHECK: %[[GS:.*]] = tile.load %[[KG]][%[[BATCH]], %[[SROW]], %[[HV]], %c0] bounds [%[[TK]], %{{.*}}] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<16x64xf32>
// The operands are transposed to [BK, 16] tiles; over (d, i, j) the
// decays 2^(G_i - G_j) multiply q_i k_j and k_i k_j, summed along d; the
// pairs (i, j) outside rows i < n, i >= j are dropped after the sums (one
// select per pair, not per column).
// CHECK: %[[GT:.*]] = tile.trans %[[GS]] : tensor<16x64xf32> -> tensor<64x16xf32>
// CHECK: %[[GJ:.*]] = tile.broadcast %[[GT]] dims [1] : tensor<64x16xf32> -> tensor<64x16x16xf32>
// CHECK: %[[GI:.*]] = tile.broadcast %[[GT]] dims [2] : tensor<64x16xf32> -> tensor<64x16x16xf32>
// CHECK: %[[DG:.*]] = arith.subf %[[GI]], %[[GJ]] : tensor<64x16x16xf32>
// CHECK: %[[E:.*]] = math.exp2 %[[DG]] : tensor<64x16x16xf32>
// CHECK: %[[KE:.*]] = arith.mulf %{{.*}}, %[[E]] : tensor<64x16x16xf32>
// CHECK-NOT: arith.select
// CHECK: arith.mulf %{{.*}}, %[[KE]] : tensor<64x16x16xf32>
// CHECK: %[[SQK:.*]] = tile.reduce add %{{.*}} dim 0 : tensor<64x16x16xf32> -> tensor<16x16xf32>
// CHECK: arith.mulf %{{.*}}, %[[KE]] : tensor<64x16x16xf32>
// CHECK: %[[SKK:.*]] = tile.reduce add %{{.*}} dim 0 : tensor<64x16x16xf32> -> tensor<16x16xf32>
// CHECK: tile.iota dim 0 : tensor<16x16xi32>
// CHECK: %[[ROWSIN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<16x16xi32>
// CHECK: %[[TRI:.*]] = tile.tri_mask lower diagonal 0 : tensor<16x16xi1>
// CHECK: %[[PAIRS:.*]] = arith.andi %[[ROWSIN]], %[[TRI]] : tensor<16x16xi1>
// CHECK: arith.select %[[PAIRS]], %[[SQK]], %{{.*}} : tensor<16x16xi1>, tensor<16x16xf32>
// CHECK: arith.select %[[PAIRS]], %[[SKK]], %{{.*}} : tensor<16x16xi1>, tensor<16x16xf32>
// No tensor-core dot on the exact path.
// CHECK-NOT: tile.dot
// Aqk = scale * tril0 (the mask above, merged by CSE), Akk = beta (by
// rows) * tril-1.
// CHECK: arith.select %[[TRI]], %{{.*}}, %{{.*}} : tensor<16x16xi1>, tensor<16x16xf32>
// CHECK: %[[BETA0:.*]] = tile.load %[[KB]][%[[BATCH]], %[[SROW]], %[[HV]]] bounds [%[[TK]]] dims [1] : memref<?x?x4xf32> -> tensor<16xf32>
// CHECK: tile.broadcast %[[BETA0]] dims [1] : tensor<16xf32> -> tensor<16x16xf32>
// CHECK: tile.tri_mask lower diagonal -1 : tensor<16x16xi1>
// CHECK: arith.truncf %{{.*}} : tensor<16x16xf32> to tensor<16x16xbf16>
// CHECK: tile.store %{{.*}}, %[[KA]][%[[BATCH]], %[[SROW]], %[[HV]], %[[SCOL]]] bounds [%[[TK]], %{{.*}}] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
// CHECK: tile.store %{{.*}}, %[[KD]][%[[BATCH]], %[[SROW]], %[[HV]], %{{.*}}] bounds [%[[TK]], %{{.*}}] dims [1, 3] : tensor<16x16xf32>, memref<?x?x4x16xf32>
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

// -----

// Varlen, chunk 32 (at most 2 sub-chunks), K = 100 (4 K tiles, the last 4 wide),
// safe_gate, f32 I/O (no casts): the reference row rho = s0 + min(8, n - 1),
// rescaled tiles (rows >= n zeroed) multiplied by tf32 dots, then
// D = (I + Akk)^-1 by tile.unit_lower_inverse, stored to Akkd.

// CHECK-LABEL: func.func @intra_diag_safe
// CHECK-SAME: kda.key = {H = "1", HV = "1", K = "100", chunk = "32", partial = "Aqk", program = "intra_diag", safe_gate = "1", scale = "0.100000001", varlen = "1"}
// CHECK: tile.launch @intra_diag_safe_intra_diag_0
// CHECK: func.func @intra_diag_safe_intra_diag_0(%{{[^:]*}}: memref<1x?x1x100xf32>, %{{[^:]*}}: memref<1x?x1x100xf32>, %[[SG:[^:]*]]: memref<1x?x1x100xf32>, %{{[^:]*}}: memref<1x?x1xf32>, %[[SA:[^:]*]]: memref<1x?x1x32xf32>, %[[SD:[^:]*]]: memref<1x?x1x16xf32>, %[[CU:[^:]*]]: memref<?xi64>)
// CHECK-SAME: attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32, block_k = 32, hoist_addresses = true>}
// CHECK: %{{.*}}, %{{.*}}, %[[BOS:.*]], %[[LEN:.*]], %[[SVALID:.*]] = tile.varlen_chunk %[[CU]], %{{.*}} chunk_size 32 : memref<?xi64>
// CHECK: %[[SEND:.*]] = arith.addi %[[BOS]], %[[LEN]] : index
// CHECK: scf.if %[[SVALID]] {
// CHECK: scf.for %[[SS:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[SSCOL:.*]] = arith.muli %[[SS]], %{{.*}} : index
// CHECK: %[[SROW0:.*]] = arith.addi %{{.*}}, %[[SSCOL]] : index
// CHECK: %[[SLEFT:.*]] = arith.subi %[[SEND]], %[[SROW0]] : index
// CHECK: %[[SN:.*]] = arith.minsi %[[SLEFT]], %{{.*}} : index
// CHECK: %[[SLAST:.*]] = arith.subi %[[SN]], %{{.*}} : index
// CHECK: %[[SOFF:.*]] = arith.minsi %[[SLAST]], %{{.*}} : index
// CHECK: %[[RHO:.*]] = arith.addi %[[SROW0]], %[[SOFF]] : index
// CHECK: scf.for %[[SCOL:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
// CHECK: tile.load %[[SG]][%{{.*}}, %[[RHO]], %{{.*}}, %[[SCOL]]] bounds [%{{.*}}] dims [3] : memref<1x?x1x100xf32> -> tensor<32xf32>
// CHECK-COUNT-2: math.exp2
// CHECK: tile.trans %{{.*}} : tensor<16x32xf32> -> tensor<32x16xf32>
// CHECK-COUNT-2: tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision = tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
// CHECK: scf.yield
// CHECK: tile.tri_mask lower diagonal -1 : tensor<16x16xi1>
// CHECK: %[[AKK:.*]] = arith.mulf %{{.*}} : tensor<16x16xf32>
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<16x16xf32>
// CHECK: %[[D:.*]] = tile.unit_lower_inverse ins(%[[AKK]] : tensor<16x16xf32>) outs(%[[INIT]] : tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK-NOT: tile.reduce
// CHECK-NOT: arith.truncf
// CHECK: tile.store %{{.*}}, %[[SA]][%{{.*}}, %[[SROW0]], %{{.*}}, %[[SSCOL]]] bounds [%[[SEND]], %{{.*}}] dims [1, 3] : tensor<16x16xf32>, memref<1x?x1x32xf32>
// CHECK: tile.store %[[D]], %[[SD]][%{{.*}}, %[[SROW0]], %{{.*}}, %{{.*}}] bounds [%[[SEND]], %{{.*}}] dims [1, 3] : tensor<16x16xf32>, memref<1x?x1x16xf32>
// CHECK-NOT: tile.
// CHECK: return
func.func @intra_diag_safe(%q: tensor<1x?x1x100xf32>, %k: tensor<1x?x1x100xf32>,
                           %G: tensor<1x?x1x100xf32>, %beta: tensor<1x?x1xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x1x32xf32>, tensor<1x?x1x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta cu_seqlens %cu
      {scale = 0.1 : f32, chunk_size = 32 : i64, safe_gate}
      : (tensor<1x?x1x100xf32>, tensor<1x?x1x100xf32>, tensor<1x?x1x100xf32>, tensor<1x?x1xf32>, tensor<?xi64>)
      -> (tensor<1x?x1x32xf32>, tensor<1x?x1x16xf32>)
  return %Aqk, %Akkd : tensor<1x?x1x32xf32>, tensor<1x?x1x16xf32>
}
