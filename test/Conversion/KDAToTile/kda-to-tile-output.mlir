// RUN: kda-opt %s --split-input-file --convert-kda-to-tile --canonicalize --cse | FileCheck %s

// kda.output: one program per (V tile, chunk, batch x value head) along x,
// V tile fastest, with V tiles of up to 128 columns (V = 100: one tile).
// K = 100 is two K tiles of 64: every operand is computed first (the scale
// folded into rd(scale * q * 2^G)), then the three dots run into one
// zero-filled accumulator, which is converted and stored.

// CHECK-LABEL: func.func @output
// CHECK-SAME: (%[[Q:[^:]*]]: memref<?x?x2x100xbf16>, %[[G:[^:]*]]: memref<?x?x8x100xf32>, %[[AQK:[^:]*]]: memref<?x?x8x64xbf16>, %[[H:[^:]*]]: memref<?x?x8x100x100xbf16>, %[[VN:[^:]*]]: memref<?x?x8x100xbf16>, %[[O:[^:]*]]: memref<?x?x8x100xbf16>)
// CHECK-SAME: kda.arg_dims = ["B,T,2,100", "B,T,8,100", "B,T,8,64", "B,NT,8,100,100", "B,T,8,100", "B,T,8,100"]
// CHECK-SAME: kda.arg_names = ["q", "G", "Aqk", "h", "v_new", "o"]
// CHECK-SAME: kda.key = {H = "2", HV = "8", K = "100", V = "100", chunk = "64", program = "output", scale = "0.125", state_layout = "kv", varlen = "0"}, kda.num_inputs = 5 : i64}
// CHECK-DAG: %[[T:.*]] = memref.dim %[[G]], %{{.*}} : memref<?x?x8x100xf32>
// CHECK-DAG: %[[NT:.*]] = arith.ceildivui %[[T]], %{{.*}} : index
// CHECK-DAG: %[[NBH:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[N:.*]] = arith.muli %[[NT]], %[[NBH]] : index
// CHECK: tile.launch @output_output_0 grid [%[[N]], %{{.*}}, %{{.*}}] args(%[[Q]], %[[G]], %[[AQK]], %[[H]], %[[VN]], %[[O]] :
// CHECK-NEXT: return

// CHECK: func.func @output_output_0(%[[KQ:[^:]*]]: memref<?x?x2x100xbf16>, %[[KG:[^:]*]]: memref<?x?x8x100xf32>, %[[KA:[^:]*]]: memref<?x?x8x64xbf16>, %[[KH:[^:]*]]: memref<?x?x8x100x100xbf16>, %[[KV:[^:]*]]: memref<?x?x8x100xbf16>, %[[KO:[^:]*]]: memref<?x?x8x100xbf16>)
// CHECK-SAME: attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128, max_live_bytes = 65536>}
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[CHUNK:.*]] = arith.remui %[[PID]], %{{.*}} : index
// CHECK: %[[BH:.*]] = arith.divui %[[PID]], %{{.*}} : index
// CHECK-DAG: %[[BATCH:.*]] = arith.divui %[[BH]], %[[C8:.*]] : index
// CHECK-DAG: %[[HV:.*]] = arith.remui %[[BH]], %[[C8]] : index
// CHECK-DAG: %[[HQ:.*]] = arith.divui %[[HV]], %{{.*}} : index
// CHECK: %[[ROW0:.*]] = arith.muli %[[CHUNK]], %[[C64:.*]] : index
// CHECK: %[[VALID:.*]] = arith.cmpi slt, %[[ROW0]], %[[TK:.*]] : index
// CHECK: scf.if %[[VALID]] {
// CHECK-NOT: scf.for
// CHECK: tile.load %[[KG]][%[[BATCH]], %[[ROW0]], %[[HV]], %[[C0:.*]]] bounds [%[[TK]], %[[C100:.*]]] dims [1, 3] : memref<?x?x8x100xf32> -> tensor<64x64xf32>
// CHECK: tile.load %[[KQ]][%[[BATCH]], %[[ROW0]], %[[HQ]], %[[C0]]] bounds [%[[TK]], %[[C100]]] dims [1, 3] : memref<?x?x2x100xbf16> -> tensor<64x64xbf16>
// CHECK: %[[SCALE:.*]] = tile.splat %{{.*}} : f32 -> tensor<64x64xf32>
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : tensor<64x64xf32>
// CHECK: %[[QG0:.*]] = arith.truncf %{{.*}} : tensor<64x64xf32> to tensor<64x64xbf16>
// CHECK: %[[H0:.*]] = tile.load %[[KH]][%[[BATCH]], %[[CHUNK]], %[[HV]], %[[C0]], %[[C0]]] bounds [%[[C100]], %[[C100]]] dims [3, 4] : memref<?x?x8x100x100xbf16> -> tensor<64x128xbf16>
// CHECK: tile.load %[[KG]][%[[BATCH]], %[[ROW0]], %[[HV]], %[[C64]]]
// CHECK: %[[QG1:.*]] = arith.truncf %{{.*}} : tensor<64x64xf32> to tensor<64x64xbf16>
// CHECK: %[[H1:.*]] = tile.load %[[KH]][%[[BATCH]], %[[CHUNK]], %[[HV]], %[[C64]], %[[C0]]]
// CHECK: tile.load %[[KA]][%[[BATCH]], %[[ROW0]], %[[HV]], %[[C0]]] bounds [%[[TK]], %[[C64]]] dims [1, 3] : memref<?x?x8x64xbf16> -> tensor<64x64xbf16>
// CHECK: %[[TRIL:.*]] = tile.tri_mask lower diagonal 0 : tensor<64x64xi1>
// CHECK: %[[CAUSAL:.*]] = arith.select %[[TRIL]], %{{.*}}, %{{.*}} : tensor<64x64xi1>, tensor<64x64xbf16>
// CHECK: %[[VT:.*]] = tile.load %[[KV]][%[[BATCH]], %[[ROW0]], %[[HV]], %[[C0]]] bounds [%[[TK]], %[[C100]]] dims [1, 3] : memref<?x?x8x100xbf16> -> tensor<64x128xbf16>
// CHECK: %[[ZERO:.*]] = tile.splat %{{.*}} : f32 -> tensor<64x128xf32>
// CHECK: %[[A0:.*]] = tile.dot %[[QG0]], %[[H0]], %[[ZERO]] precision = tf32 : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
// CHECK: %[[A1:.*]] = tile.dot %[[QG1]], %[[H1]], %[[A0]] precision = tf32
// CHECK: %[[OUT:.*]] = tile.dot %[[CAUSAL]], %[[VT]], %[[A1]] precision = tf32
// CHECK: %[[O16:.*]] = arith.truncf %[[OUT]]
// CHECK: tile.store %[[O16]], %[[KO]][%[[BATCH]], %[[ROW0]], %[[HV]], %[[C0]]] bounds [%[[TK]], %[[C100]]] dims [1, 3]
func.func @output(%q: tensor<?x?x2x100xbf16>, %G: tensor<?x?x8x100xf32>, %Aqk: tensor<?x?x8x64xbf16>,
                  %h: tensor<?x?x8x100x100xbf16>, %vn: tensor<?x?x8x100xbf16>) -> tensor<?x?x8x100xbf16> {
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<?x?x2x100xbf16>, tensor<?x?x8x100xf32>, tensor<?x?x8x64xbf16>,
         tensor<?x?x8x100x100xbf16>, tensor<?x?x8x100xbf16>) -> tensor<?x?x8x100xbf16>
  return %o : tensor<?x?x8x100xbf16>
}

// -----

// Varlen with state_layout vk: h is indexed by chunk_offsets[n] + c (a loop
// over the earlier sequences' chunk counts) and read as [BV, BK] tiles,
// transposed. With f32 I/O the V tile is 64 wide and the K tiles run in a
// loop (here one tile: the loop folds away) with the scale applied after it.

// CHECK-LABEL: func.func @output_varlen_vk
// CHECK-SAME: kda.arg_dims = ["1,T,1,60", "1,T,1,60", "1,T,1,32", "1,NT,1,128,60", "1,T,1,128", "N1", "1,T,1,128"]
// CHECK-SAME: chunk = "32", program = "output", scale = "0.100000001", state_layout = "vk", varlen = "1"
// CHECK: func.func @output_varlen_vk_output_0
// CHECK-SAME: %[[KH:[^:]*]]: memref<1x?x1x128x60xf32>, %{{[^:]*}}: memref<1x?x1x128xf32>, %{{[^:]*}}: memref<1x?x1x128xf32>, %[[CU:[^:]*]]: memref<?xi64>)
// CHECK: %[[SEQ:.*]], %[[C:.*]], %[[BOS:.*]], %[[LEN:.*]], %[[OK:.*]] = tile.varlen_chunk %[[CU]], %{{.*}} chunk_size 32 : memref<?xi64>
// CHECK: scf.if %[[OK]] {
// CHECK: %[[FIRST:.*]] = scf.for %[[M:.*]] = %{{.*}} to %[[SEQ]] step %{{.*}} iter_args(%[[S:.*]] = %{{.*}}) -> (index) {
// CHECK: memref.load %[[CU]][%[[M]]] : memref<?xi64>
// CHECK: memref.load %[[CU]][%{{.*}}] : memref<?xi64>
// CHECK: %[[NC:.*]] = arith.ceildivui %{{.*}}, %{{.*}} : index
// CHECK: %[[SUM:.*]] = arith.addi %[[S]], %[[NC]] : index
// CHECK: scf.yield %[[SUM]] : index
// CHECK: %[[ID:.*]] = arith.addi %[[FIRST]], %[[C]] : index
// CHECK: %[[HT:.*]] = tile.load %[[KH]][%{{.*}}, %[[ID]], %{{.*}}, %{{.*}}, %{{.*}}] bounds [%{{.*}}, %{{.*}}] dims [3, 4] : memref<1x?x1x128x60xf32> -> tensor<64x64xf32>
// CHECK: %[[HKV:.*]] = tile.trans %[[HT]] : tensor<64x64xf32> -> tensor<64x64xf32>
// CHECK: tile.dot %{{.*}}, %[[HKV]], %{{.*}} precision = tf32 : tensor<32x64xf32>, tensor<64x64xf32> -> tensor<32x64xf32>
func.func @output_varlen_vk(%q: tensor<1x?x1x60xf32>, %G: tensor<1x?x1x60xf32>, %Aqk: tensor<1x?x1x32xf32>,
                            %h: tensor<1x?x1x128x60xf32>, %vn: tensor<1x?x1x128xf32>, %cu: tensor<?xi64>)
    -> tensor<1x?x1x128xf32> {
  %o = kda.output %q, %G, %Aqk, %h, %vn cu_seqlens %cu
      {scale = 0.1 : f32, chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x1x60xf32>, tensor<1x?x1x60xf32>, tensor<1x?x1x32xf32>,
         tensor<1x?x1x128x60xf32>, tensor<1x?x1x128xf32>, tensor<?xi64>) -> tensor<1x?x1x128xf32>
  return %o : tensor<1x?x1x128xf32>
}

// -----

// K = V = 256: V in two tiles of 128 (the V tile fastest along x), and K in
// four tiles of 64, over which the inter-chunk term accumulates in an
// scf.for; it is scaled after the loop and tril0(Aqk) . v_new is added.

// CHECK-LABEL: func.func @output_k256_output_0
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[VTILE:.*]] = arith.remui %[[PID]], %[[C2:.*]] : index
// CHECK: arith.divui %[[PID]], %[[C2]] : index
// CHECK: %[[VCOL:.*]] = arith.muli %[[VTILE]], %{{.*}} : index
// CHECK: scf.if
// CHECK: %[[ACC:.*]] = scf.for %[[KC:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (tensor<64x128xf32>) {
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %[[KC]], %[[VCOL]]] {{.*}} -> tensor<64x128xbf16>
// CHECK: %[[NA:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[A]] precision = tf32 : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
// CHECK: scf.yield %[[NA]]
// CHECK: %[[INTER:.*]] = arith.mulf %[[ACC]], %{{.*}} : tensor<64x128xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %[[INTER]] precision = tf32
// CHECK: tile.store
func.func @output_k256(%q: tensor<?x?x4x256xbf16>, %G: tensor<?x?x4x256xf32>, %Aqk: tensor<?x?x4x64xbf16>,
                       %h: tensor<?x?x4x256x256xbf16>, %vn: tensor<?x?x4x256xbf16>) -> tensor<?x?x4x256xbf16> {
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.0625 : f32}
      : (tensor<?x?x4x256xbf16>, tensor<?x?x4x256xf32>, tensor<?x?x4x64xbf16>,
         tensor<?x?x4x256x256xbf16>, tensor<?x?x4x256xbf16>) -> tensor<?x?x4x256xbf16>
  return %o : tensor<?x?x4x256xbf16>
}
