// RUN: kda-opt %s --split-input-file --convert-kda-to-tile=mapping=shared-memory --canonicalize --cse | FileCheck %s

// The shared-memory mapping's kernels (K tiles of 32); which mapping the
// tuned default picks per shape is in kda-to-tile-tuning.mlir.

// kda.inter_solve: one program per (chunk, batch x value head) along x; the
// off-diagonal blocks accumulate over K tiles (scf.for with the 12
// accumulators of the 6 pairs) in nested scf.ifs that skip sub-chunks past
// the sequence end; then the scaling, the inverses of the diagonal blocks
// (one tile.unit_lower_inverse), the merge at the op's precision and the stores.

// CHECK-LABEL: func.func @inter_solve
// CHECK-SAME: (%[[Q:[^:]*]]: memref<?x?x2x64xbf16>, %[[K:[^:]*]]: memref<?x?x2x64xbf16>, %[[G:[^:]*]]: memref<?x?x4x64xf32>, %[[BETA:[^:]*]]: memref<?x?x4xf32>, %[[AQK:[^:]*]]: memref<?x?x4x64xbf16>, %[[AKKD:[^:]*]]: memref<?x?x4x16xf32>, %[[AQKO:[^:]*]]: memref<?x?x4x64xbf16>, %[[M:[^:]*]]: memref<?x?x4x64xbf16>)
// CHECK-SAME: kda.arg_dims = ["B,T,2,64", "B,T,2,64", "B,T,4,64", "B,T,4", "B,T,4,64", "B,T,4,16", "B,T,4,64", "B,T,4,64"]
// CHECK-SAME: kda.arg_names = ["q", "k", "G", "beta", "Aqk", "Akkd", "Aqk_out", "M"]
// CHECK-SAME: kda.key = {H = "2", HV = "4", K = "64", chunk = "64", precision = "tf32x3", program = "inter_solve", safe_gate = "0", scale = "0.125", varlen = "0"}, kda.num_inputs = 6 : i64}
// CHECK-DAG: %[[T:.*]] = memref.dim %[[G]], %{{.*}} : memref<?x?x4x64xf32>
// CHECK-DAG: %[[NT:.*]] = arith.ceildivui %[[T]], %{{.*}} : index
// CHECK-DAG: %[[B:.*]] = memref.dim %[[G]], %{{.*}} : memref<?x?x4x64xf32>
// CHECK-DAG: %[[NBH:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: %[[N:.*]] = arith.muli %[[NT]], %[[NBH]] : index
// CHECK: tile.launch @inter_solve_inter_solve_0 grid [%[[N]], %{{.*}}, %{{.*}}] args(%[[Q]], %[[K]], %[[G]], %[[BETA]], %[[AQK]], %[[AKKD]], %[[AQKO]], %[[M]] :
// CHECK-SAME: {tile.partition = "chunks64"}
// CHECK-NEXT: return

// CHECK: func.func @inter_solve_inter_solve_0(%[[KQ:[^:]*]]: memref<?x?x2x64xbf16>, %[[KK:[^:]*]]: memref<?x?x2x64xbf16>, %[[KG:[^:]*]]: memref<?x?x4x64xf32>, %[[KB:[^:]*]]: memref<?x?x4xf32>, %[[KA:[^:]*]]: memref<?x?x4x64xbf16>, %[[KD:[^:]*]]: memref<?x?x4x16xf32>, %[[KAO:[^:]*]]: memref<?x?x4x64xbf16>, %[[KM:[^:]*]]: memref<?x?x4x64xbf16>)
// CHECK-SAME: attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, max_registers = 128, block_k = 32, speculate_loads = true, hoist_addresses = true>}
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

// Off-diagonal blocks: K tiles of 32, sub-chunk 0's k and G, then one
// scf.if per sub-chunk I, nested, each yielding the accumulators of the
// pairs (I', J) with I' >= I.
// CHECK: %[[ACC:.*]]:12 = scf.for %[[COL:.*]] = %{{.*}} to %{{.*}} step %[[C32:.*]] iter_args({{.*}}) -> (tensor<16x16xf32>, {{.*}}) {
// CHECK: tile.load %[[KK]][%[[BATCH]], %[[ROW0]], %[[H]], %[[COL]]] bounds [%[[TK]], %{{.*}}] dims [1, 3] : memref<?x?x2x64xbf16> -> tensor<16x32xbf16>
// CHECK: tile.load %[[KG]][%[[BATCH]], %[[ROW0]], %[[HV]], %[[COL]]] bounds [%[[TK]], %{{.*}}] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<16x32xf32>
// CHECK: %[[ROW1:.*]] = arith.addi %[[ROW0]], %{{.*}} : index
// CHECK: %[[HAS1:.*]] = arith.cmpi slt, %[[ROW1]], %[[TK]] : index
// CHECK: scf.if %[[HAS1]] -> (tensor<16x16xf32>, {{.*}}) {
// CHECK: tile.load %[[KQ]][%[[BATCH]], %[[ROW1]], %[[H]], %[[COL]]]
// gn: G at the first row of the sub-chunk, one K-tile row (its row, which
// the load does not bound, clamped to the last row: the kernel's loads are
// speculated out of these branches).
// CHECK: %[[LAST:.*]] = arith.subi %[[TK]], %{{.*}} : index
// CHECK: %[[GNROW:.*]] = arith.minsi %[[ROW1]], %[[LAST]] : index
// CHECK: %[[GN:.*]] = tile.load %[[KG]][%[[BATCH]], %[[GNROW]], %[[HV]], %[[COL]]] bounds [%{{.*}}] dims [3] : memref<?x?x4x64xf32> -> tensor<32xf32>
// CHECK: %[[GNB:.*]] = tile.broadcast %[[GN]] dims [0] : tensor<32xf32> -> tensor<16x32xf32>
// Rows past the end get 0 instead of 2^(G - gn).
// CHECK: tile.iota dim 0 : tensor<16x32xi32>
// CHECK: %[[MASK:.*]] = arith.cmpi slt
// CHECK: %[[E:.*]] = math.exp2 %{{.*}} : tensor<16x32xf32>
// CHECK: arith.select %[[MASK]], %[[E]], %{{.*}} : tensor<16x32xi1>, tensor<16x32xf32>
// CHECK: math.exp2
// CHECK: tile.trans %{{.*}} : tensor<16x32xf32> -> tensor<32x16xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision = tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision = tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
// CHECK: scf.if %{{.*}} -> (tensor<16x16xf32>, {{.*}}) {
// CHECK: scf.if %{{.*}} -> (tensor<16x16xf32>, {{.*}}) {
// CHECK-COUNT-6: tile.dot {{.*}} precision = tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
// CHECK: } else {
// CHECK-NEXT: scf.yield
// CHECK: scf.yield %{{.*}} : tensor<16x16xf32>,

// beta scales Akk by rows.
// CHECK: %[[BETA1:.*]] = tile.load %[[KB]][%[[BATCH]], %{{.*}}, %[[HV]]] bounds [%[[TK]]] dims [1] : memref<?x?x4xf32> -> tensor<16xf32>
// CHECK: tile.broadcast %[[BETA1]] dims [1] : tensor<16xf32> -> tensor<16x16xf32>

// The four diagonal blocks from Akkd, inverted by one
// tile.unit_lower_inverse (it reads only their strictly lower parts).
// CHECK: %[[D0:.*]] = tile.load %[[KD]][%[[BATCH]], %[[ROW0]], %[[HV]], %{{.*}}] bounds [%[[TK]], %{{.*}}] dims [1, 3] : memref<?x?x4x16xf32> -> tensor<16x16xf32>
// CHECK: %[[D1:.*]] = tile.load %[[KD]]
// CHECK: %[[D2:.*]] = tile.load %[[KD]]
// CHECK: %[[D3:.*]] = tile.load %[[KD]]
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<16x16xf32>
// CHECK: tile.unit_lower_inverse ins(%[[D0]], %[[D1]], %[[D2]], %[[D3]] : {{.*}}) outs(%[[INIT]], %[[INIT]], %[[INIT]], %[[INIT]] : {{.*}}) -> tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
// CHECK-NOT: scf.for

// The merge: 16 dots of 16x16 blocks at the op's precision.
// CHECK-COUNT-16: tile.dot {{.*}} precision = tf32x3 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>

// Stores of sub-chunk 0: the Aqk row block (the diagonal block copied,
// zeros right of it: no consumer reads memory that nothing wrote), the M
// row block (D_0 and three zero blocks); then one scf.if per further
// sub-chunk, each storing all four blocks of both row blocks.
// CHECK: %[[DIAG:.*]] = tile.load %[[KA]][%[[BATCH]], %[[ROW0]], %[[HV]], %{{.*}}] bounds [%[[TK]], %{{.*}}] dims [1, 3] : memref<?x?x4x64xbf16> -> tensor<16x16xbf16>
// CHECK: tile.store %[[DIAG]], %[[KAO]][%[[BATCH]], %[[ROW0]], %[[HV]], %{{.*}}] bounds [%[[TK]], %{{.*}}] dims [1, 3]
// CHECK-COUNT-3: tile.store %[[ZERO:.*]], %[[KAO]][%[[BATCH]], %[[ROW0]], %[[HV]], %{{.*}}] bounds [%[[TK]], %{{.*}}] dims [1, 3]
// CHECK: arith.truncf %{{.*}} : tensor<16x16xf32> to tensor<16x16xbf16>
// CHECK-COUNT-4: tile.store %{{.*}}, %[[KM]][%[[BATCH]], %[[ROW0]], %[[HV]], %{{.*}}] bounds [%[[TK]], %{{.*}}] dims [1, 3]
// CHECK: scf.if
// CHECK-COUNT-4: tile.store %{{.*}}, %[[KAO]]
// CHECK-COUNT-4: tile.store %{{.*}}, %[[KM]]
// CHECK: scf.if
// CHECK-COUNT-4: tile.store %{{.*}}, %[[KAO]]
// CHECK-COUNT-4: tile.store %{{.*}}, %[[KM]]
// CHECK: scf.if
// CHECK-COUNT-4: tile.store %{{.*}}, %[[KAO]]
// CHECK-COUNT-4: tile.store %{{.*}}, %[[KM]]
// CHECK-NOT: tile.
// CHECK: return
func.func @inter_solve(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>,
                       %G: tensor<?x?x4x64xf32>, %beta: tensor<?x?x4xf32>,
                       %Aqk: tensor<?x?x4x64xbf16>, %Akkd: tensor<?x?x4x16xf32>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.125 : f32, precision = #kda<precision tf32x3>}
      : (tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x4x64xf32>,
         tensor<?x?x4xf32>, tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>)
  return %Aqk_out, %M : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>
}

// -----

// Varlen, chunk 32 (2 sub-chunks: one pair), K = 100 (4 K tiles, the last
// 4 wide), safe_gate (no forward substitution: Akkd holds the inverses),
// f32 I/O (no casts), merge at ieee.

// CHECK-LABEL: func.func @inter_solve_varlen
// CHECK-SAME: kda.arg_names = ["q", "k", "G", "beta", "Aqk", "Akkd", "cu_seqlens", "Aqk_out", "M"]
// CHECK-SAME: chunk = "32", precision = "ieee", program = "inter_solve", safe_gate = "1", scale = "0.100000001", varlen = "1"
// CHECK-DAG: %[[LEN:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?xi64>
// CHECK-DAG: %[[NSEQ:.*]] = arith.subi %[[LEN]], %{{.*}} : index
// CHECK-DAG: %[[FULL:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK: %[[NT:.*]] = arith.addi %[[FULL]], %[[NSEQ]] : index
// CHECK: tile.launch @inter_solve_varlen_inter_solve_0 grid [%{{.*}}, %{{.*}}, %{{.*}}] args({{.*}} : memref<1x?x1x100xf32>, memref<1x?x1x100xf32>, memref<1x?x1x100xf32>, memref<1x?x1xbf16>, memref<1x?x1x32xf32>, memref<1x?x1x16xf32>, memref<1x?x1x32xf32>, memref<1x?x1x32xf32>, memref<?xi64>)
// CHECK-SAME: {tile.partition = "chunks32"}
// CHECK: func.func @inter_solve_varlen_inter_solve_0
// CHECK: %{{.*}}, %[[C:.*]], %[[BOS:.*]], %[[LENGTH:.*]], %[[OK:.*]] = tile.varlen_chunk %{{.*}}, %{{.*}} chunk_size 32 : memref<?xi64>
// CHECK: %[[END:.*]] = arith.addi %[[BOS]], %[[LENGTH]] : index
// CHECK: scf.if %[[OK]] {
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
// CHECK: tile.load {{.*}} bounds [%[[END]], %{{.*}}] dims [1, 3] : memref<1x?x1x100xf32> -> tensor<16x32xf32>
// CHECK-COUNT-2: tile.dot {{.*}} precision = tf32 : tensor<16x32xf32>, tensor<32x16xf32>
// CHECK: arith.extf %{{.*}} : tensor<16xbf16> to tensor<16xf32>
// CHECK-NOT: tile.unit_lower_inverse
// CHECK-COUNT-2: tile.dot {{.*}} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NOT: tile.dot
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @inter_solve_varlen(%q: tensor<1x?x1x100xf32>, %k: tensor<1x?x1x100xf32>,
                              %G: tensor<1x?x1x100xf32>, %beta: tensor<1x?x1xbf16>,
                              %Aqk: tensor<1x?x1x32xf32>, %Akkd: tensor<1x?x1x16xf32>,
                              %cu: tensor<?xi64>)
    -> (tensor<1x?x1x32xf32>, tensor<1x?x1x32xf32>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd cu_seqlens %cu
      {scale = 0.1 : f32, chunk_size = 32 : i64, safe_gate, precision = #kda<precision ieee>}
      : (tensor<1x?x1x100xf32>, tensor<1x?x1x100xf32>, tensor<1x?x1x100xf32>,
         tensor<1x?x1xbf16>, tensor<1x?x1x32xf32>, tensor<1x?x1x16xf32>, tensor<?xi64>)
      -> (tensor<1x?x1x32xf32>, tensor<1x?x1x32xf32>)
  return %Aqk_out, %M : tensor<1x?x1x32xf32>, tensor<1x?x1x32xf32>
}
