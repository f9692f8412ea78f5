// RUN: kda-opt %s --split-input-file --convert-kda-to-tile --canonicalize --cse | FileCheck %s

// kda.wy_recompute: one program per (chunk, batch x value head) along x.
// Each loads the chunk's M block (rows and columns past the sequence end
// read as 0, the upper triangle masked) and beta, then loops over K tiles
// (w = M . rd(beta * k * 2^G), kg = k * 2^(G_last - G) with G_last at the
// last valid row) and over V tiles (u = M . rd(beta * v)).

// CHECK-LABEL: func.func @wy
// CHECK-SAME: (%[[K:[^:]*]]: memref<?x?x2x100xbf16>, %[[V:[^:]*]]: memref<?x?x8x100xbf16>, %[[G:[^:]*]]: memref<?x?x8x100xf32>, %[[BETA:[^:]*]]: memref<?x?x8xf32>, %[[M:[^:]*]]: memref<?x?x8x64xbf16>, %[[W:[^:]*]]: memref<?x?x8x100xbf16>, %[[U:[^:]*]]: memref<?x?x8x100xbf16>, %[[KG:[^:]*]]: memref<?x?x8x100xbf16>)
// CHECK-SAME: kda.arg_dims = ["B,T,2,100", "B,T,8,100", "B,T,8,100", "B,T,8", "B,T,8,64", "B,T,8,100", "B,T,8,100", "B,T,8,100"]
// CHECK-SAME: kda.arg_names = ["k", "v", "G", "beta", "M", "w", "u", "kg"]
// CHECK-SAME: kda.key = {H = "2", HV = "8", K = "100", V = "100", chunk = "64", program = "wy_recompute", varlen = "0"}, kda.num_inputs = 5 : i64}
// CHECK-DAG: %[[T:.*]] = memref.dim %[[G]], %{{.*}} : memref<?x?x8x100xf32>
// CHECK-DAG: %[[NT:.*]] = arith.ceildivui %[[T]], %{{.*}} : index
// CHECK-DAG: %[[NBH:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[N:.*]] = arith.muli %[[NT]], %[[NBH]] : index
// CHECK: tile.launch @wy_wy_recompute_0 grid [%[[N]], %{{.*}}, %{{.*}}] args(%[[K]], %[[V]], %[[G]], %[[BETA]], %[[M]], %[[W]], %[[U]], %[[KG]] :
// CHECK-SAME: {tile.partition = "chunks64"}
// CHECK-NEXT: return

// CHECK: func.func @wy_wy_recompute_0(%[[KK:[^:]*]]: memref<?x?x2x100xbf16>, %[[KV:[^:]*]]: memref<?x?x8x100xbf16>, %[[KGT:[^:]*]]: memref<?x?x8x100xf32>, %[[KB:[^:]*]]: memref<?x?x8xf32>, %[[KM:[^:]*]]: memref<?x?x8x64xbf16>, %[[KW:[^:]*]]: memref<?x?x8x100xbf16>, %[[KU:[^:]*]]: memref<?x?x8x100xbf16>, %[[KKG:[^:]*]]: memref<?x?x8x100xbf16>)
// CHECK-SAME: attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128, max_registers = 128>}
// Heads fastest: pid = chunk * (B * HV) + bh.
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[CHUNK:.*]] = arith.divui %[[PID]], %{{.*}} : index
// CHECK: %[[BH:.*]] = arith.remui %[[PID]], %{{.*}} : index
// CHECK-DAG: %[[BATCH:.*]] = arith.divui %[[BH]], %[[C8:.*]] : index
// CHECK-DAG: %[[HV:.*]] = arith.remui %[[BH]], %[[C8]] : index
// Grouped value heads: k head = hv / (HV / H).
// CHECK-DAG: %[[H:.*]] = arith.divui %[[HV]], %[[C4:.*]] : index
// CHECK: %[[ROW0:.*]] = arith.muli %[[CHUNK]], %[[C64:.*]] : index
// CHECK: %[[VALID:.*]] = arith.cmpi slt, %[[ROW0]], %[[TK:.*]] : index
// CHECK: scf.if %[[VALID]] {
// M: columns past the sequence end read as 0, then the lower triangle.
// CHECK: %[[LEFT:.*]] = arith.subi %[[TK]], %[[ROW0]] : index
// CHECK: %[[MRAW:.*]] = tile.load %[[KM]][%[[BATCH]], %[[ROW0]], %[[HV]], %{{.*}}] bounds [%[[TK]], %[[LEFT]]] dims [1, 3] : memref<?x?x8x64xbf16> -> tensor<64x64xbf16>
// M stays bf16: the dots take 16-bit operands (exact products).
// CHECK: %[[TRIL:.*]] = tile.tri_mask lower diagonal 0 : tensor<64x64xi1>
// CHECK: %[[MT:.*]] = arith.select %[[TRIL]], %[[MRAW]], %{{.*}} : tensor<64x64xi1>, tensor<64x64xbf16>
// CHECK: %[[BETAT:.*]] = tile.load %[[KB]][%[[BATCH]], %[[ROW0]], %[[HV]]] bounds [%[[TK]]] dims [1] : memref<?x?x8xf32> -> tensor<64xf32>
// The last valid row: min(row0 + BT, end) - 1.
// CHECK: %[[NEXT:.*]] = arith.addi %[[ROW0]], %[[C64]] : index
// CHECK: %[[END:.*]] = arith.minsi %[[NEXT]], %[[TK]] : index
// CHECK: %[[LAST:.*]] = arith.subi %[[END]], %{{.*}} : index

// K tiles of 64 over K = 100: w and kg.
// CHECK: scf.for %[[COL:.*]] = %{{.*}} to %[[C100:.*]] step %[[C64]] {
// CHECK: tile.load %[[KK]][%[[BATCH]], %[[ROW0]], %[[H]], %[[COL]]] bounds [%[[TK]], %[[C100]]] dims [1, 3] : memref<?x?x2x100xbf16> -> tensor<64x64xbf16>
// CHECK: %[[GT:.*]] = tile.load %[[KGT]][%[[BATCH]], %[[ROW0]], %[[HV]], %[[COL]]] bounds [%[[TK]], %[[C100]]] dims [1, 3]
// CHECK: math.exp2 %[[GT]]
// rd(beta * k * 2^G): rounded to bf16 before the dot.
// CHECK: %[[KB16:.*]] = arith.truncf %{{.*}} : tensor<64x64xf32> to tensor<64x64xbf16>
// CHECK: %[[WT:.*]] = tile.dot %[[MT]], %[[KB16]], %{{.*}} precision = tf32 : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
// CHECK: %[[W16:.*]] = arith.truncf %[[WT]]
// CHECK: tile.store %[[W16]], %[[KW]][%[[BATCH]], %[[ROW0]], %[[HV]], %[[COL]]] bounds [%[[TK]], %[[C100]]] dims [1, 3]
// CHECK: %[[GL:.*]] = tile.load %[[KGT]][%[[BATCH]], %[[LAST]], %[[HV]], %[[COL]]] bounds [%[[C100]]] dims [3] : memref<?x?x8x100xf32> -> tensor<64xf32>
// CHECK: %[[GLB:.*]] = tile.broadcast %[[GL]] dims [0]
// CHECK: arith.subf %[[GLB]], %[[GT]]
// CHECK: tile.store %{{.*}}, %[[KKG]][%[[BATCH]], %[[ROW0]], %[[HV]], %[[COL]]] bounds [%[[TK]], %[[C100]]] dims [1, 3]
// CHECK: }

// V tiles: u.
// CHECK: scf.for %[[VCOL:.*]] = %{{.*}} to %[[C100]] step %[[C64]] {
// CHECK: tile.load %[[KV]][%[[BATCH]], %[[ROW0]], %[[HV]], %[[VCOL]]] bounds [%[[TK]], %[[C100]]] dims [1, 3]
// CHECK: arith.truncf %{{.*}} : tensor<64x64xf32> to tensor<64x64xbf16>
// CHECK: %[[UT:.*]] = tile.dot %[[MT]], %{{.*}}, %{{.*}} precision = tf32
// CHECK: %[[U16:.*]] = arith.truncf %[[UT]]
// CHECK: tile.store %[[U16]], %[[KU]][%[[BATCH]], %[[ROW0]], %[[HV]], %[[VCOL]]] bounds [%[[TK]], %[[C100]]] dims [1, 3]
func.func @wy(%k: tensor<?x?x2x100xbf16>, %v: tensor<?x?x8x100xbf16>, %G: tensor<?x?x8x100xf32>,
              %beta: tensor<?x?x8xf32>, %M: tensor<?x?x8x64xbf16>)
    -> (tensor<?x?x8x100xbf16>, tensor<?x?x8x100xbf16>, tensor<?x?x8x100xbf16>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<?x?x2x100xbf16>, tensor<?x?x8x100xbf16>, tensor<?x?x8x100xf32>,
         tensor<?x?x8xf32>, tensor<?x?x8x64xbf16>)
      -> (tensor<?x?x8x100xbf16>, tensor<?x?x8x100xbf16>, tensor<?x?x8x100xbf16>)
  return %w, %u, %kg : tensor<?x?x8x100xbf16>, tensor<?x?x8x100xbf16>, tensor<?x?x8x100xbf16>
}

// -----

// Varlen, chunk 32, f32: the chunk comes from tile.varlen_chunk, the rows
// end at the sequence end; f32 I/O has no rounding before the dots.

// CHECK-LABEL: func.func @wy_varlen
// CHECK-SAME: kda.arg_names = ["k", "v", "G", "beta", "M", "cu_seqlens", "w", "u", "kg"]
// CHECK-SAME: chunk = "32", program = "wy_recompute", varlen = "1"
// CHECK: func.func @wy_varlen_wy_recompute_0
// CHECK: %{{.*}}, %[[C:.*]], %[[BOS:.*]], %[[LEN:.*]], %[[OK:.*]] = tile.varlen_chunk %{{.*}}, %{{.*}} chunk_size 32 : memref<?xi64>
// CHECK: %[[OFF:.*]] = arith.muli %[[C]], %{{.*}} : index
// CHECK: %[[ROW0:.*]] = arith.addi %[[BOS]], %[[OFF]] : index
// CHECK: %[[END:.*]] = arith.addi %[[BOS]], %[[LEN]] : index
// CHECK: scf.if %[[OK]] {
// CHECK: tile.load %{{.*}}[%{{.*}}, %[[ROW0]], %{{.*}}, %{{.*}}] bounds [%[[END]], %{{.*}}] dims [1, 3] : memref<1x?x1x32xf32> -> tensor<32x32xf32>
// CHECK-NOT: arith.truncf
// CHECK: tile.dot {{.*}} precision = tf32 : tensor<32x32xf32>, tensor<32x64xf32> -> tensor<32x64xf32>
func.func @wy_varlen(%k: tensor<1x?x1x60xf32>, %v: tensor<1x?x1x128xf32>, %G: tensor<1x?x1x60xf32>,
                     %beta: tensor<1x?x1xf32>, %M: tensor<1x?x1x32xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x1x60xf32>, tensor<1x?x1x128xf32>, tensor<1x?x1x60xf32>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M cu_seqlens %cu {chunk_size = 32 : i64}
      : (tensor<1x?x1x60xf32>, tensor<1x?x1x128xf32>, tensor<1x?x1x60xf32>,
         tensor<1x?x1xf32>, tensor<1x?x1x32xf32>, tensor<?xi64>)
      -> (tensor<1x?x1x60xf32>, tensor<1x?x1x128xf32>, tensor<1x?x1x60xf32>)
  return %w, %u, %kg : tensor<1x?x1x60xf32>, tensor<1x?x1x128xf32>, tensor<1x?x1x60xf32>
}
