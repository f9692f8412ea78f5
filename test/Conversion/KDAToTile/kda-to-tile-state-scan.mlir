// RUN: kda-opt %s --split-input-file --convert-kda-to-tile --canonicalize --cse | FileCheck %s

// kda.state_scan: one program per (V tile of 32 columns, batch x value
// head) along x; the state is carried as f32 tiles of [128, 32] (one tile
// for K <= 128; [64, 32] tiles for K <= 64 or K > 128) through an scf.for over the chunks: store h = rd(S), v_new = u - w rd(S),
// then S = S * 2^G_last + kg^T rd(v_new).

// CHECK-LABEL: func.func @fixed_kv
// CHECK-SAME: (%[[KG:[^:]*]]: memref<?x?x8x128xbf16>, %[[W:[^:]*]]: memref<?x?x8x128xbf16>, %[[U:[^:]*]]: memref<?x?x8x128xbf16>, %[[G:[^:]*]]: memref<?x?x8x128xf32>, %[[H0:[^:]*]]: memref<?x8x128x128xf32>, %[[H:[^:]*]]: memref<?x?x8x128x128xbf16>, %[[VN:[^:]*]]: memref<?x?x8x128xbf16>, %[[HT:[^:]*]]: memref<?x8x128x128xf32>)
// CHECK-SAME: kda.arg_dims = ["B,T,8,128", "B,T,8,128", "B,T,8,128", "B,T,8,128", "N,8,128,128", "B,NT,8,128,128", "B,T,8,128", "N,8,128,128"]
// CHECK-SAME: kda.arg_names = ["kg", "w", "u", "G", "initial_state", "h", "v_new", "final_state"]
// CHECK-SAME: kda.key = {HV = "8", K = "128", V = "128", chunk = "64", program = "state_scan", state_layout = "kv", varlen = "0"}, kda.num_inputs = 5 : i64}
// 4 V tiles x 8 heads per batch entry.
// CHECK: %[[B:.*]] = memref.dim %[[KG]], %{{.*}} : memref<?x?x8x128xbf16>
// CHECK: %[[N:.*]] = arith.muli %[[B]], %c32 : index
// CHECK: tile.launch @fixed_kv_state_scan_0 grid [%[[N]], %{{.*}}, %{{.*}}] args(%[[KG]], %[[W]], %[[U]], %[[G]], %[[H0]], %[[H]], %[[VN]], %[[HT]] :

// CHECK: func.func @fixed_kv_state_scan_0(%[[KKG:[^:]*]]: memref<?x?x8x128xbf16>, %[[KW:[^:]*]]: memref<?x?x8x128xbf16>, %[[KU:[^:]*]]: memref<?x?x8x128xbf16>, %[[KGG:[^:]*]]: memref<?x?x8x128xf32>, %[[KH0:[^:]*]]: memref<?x8x128x128xf32>, %[[KH:[^:]*]]: memref<?x?x8x128x128xbf16>, %[[KVN:[^:]*]]: memref<?x?x8x128xbf16>, %[[KHT:[^:]*]]: memref<?x8x128x128xf32>)
// CHECK-SAME: attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128, block_v = 32>}
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[VT:.*]] = arith.remui %[[PID]], %c4 : index
// CHECK: %[[BH:.*]] = arith.divui %[[PID]], %c4 : index
// CHECK: %[[BATCH:.*]] = arith.divui %[[BH]], %c8 : index
// CHECK: %[[HEAD:.*]] = arith.remui %[[BH]], %c8 : index
// CHECK: %[[V0:.*]] = arith.muli %[[VT]], %c32 : index
// CHECK: %[[T:.*]] = memref.dim %[[KKG]], %c1
// K <= 128: the initial state is one [128, 32] tile.
// CHECK: %[[S0:.*]] = tile.load %[[KH0]][%[[BATCH]], %[[HEAD]], %c0, %[[V0]]] dims [2, 3] : memref<?x8x128x128xf32> -> tensor<128x32xf32>
// CHECK: %[[NT:.*]] = arith.ceildivui %[[T]], %c64 : index
// CHECK: %[[LOOP:.*]] = scf.for %[[C:.*]] = %c0 to %[[NT]] step %c1 iter_args(%[[A0:.*]] = %[[S0]]) -> (tensor<128x32xf32>) {
// CHECK: %[[ROW:.*]] = arith.muli %[[C]], %c64 : index
// CHECK: %[[R0:.*]] = arith.truncf %[[A0]] : tensor<128x32xf32> to tensor<128x32xbf16>
// CHECK: tile.store %[[R0]], %[[KH]][%[[BATCH]], %[[C]], %[[HEAD]], %c0, %[[V0]]] dims [3, 4] : tensor<128x32xbf16>
// CHECK: %[[W0:.*]] = tile.load %[[KW]][%[[BATCH]], %[[ROW]], %[[HEAD]], %c0] bounds [%[[T]], %c128] dims [1, 3] : memref<?x?x8x128xbf16> -> tensor<64x128xbf16>
// CHECK: %[[D0:.*]] = tile.dot %[[W0]], %[[R0]], %{{.*}} : tensor<64x128xbf16>, tensor<128x32xbf16> -> tensor<64x32xf32>
// CHECK: %[[UT:.*]] = tile.load %[[KU]][%[[BATCH]], %[[ROW]], %[[HEAD]], %[[V0]]] bounds [%[[T]], %c128] dims [1, 3] : memref<?x?x8x128xbf16> -> tensor<64x32xbf16>
// CHECK: %[[UF:.*]] = arith.extf %[[UT]]
// CHECK: %[[VNF:.*]] = arith.subf %[[UF]], %[[D0]] : tensor<64x32xf32>
// CHECK: %[[VNB:.*]] = arith.truncf %[[VNF]] : tensor<64x32xf32> to tensor<64x32xbf16>
// CHECK: tile.store %[[VNB]], %[[KVN]][%[[BATCH]], %[[ROW]], %[[HEAD]], %[[V0]]] bounds [%[[T]], %c128] dims [1, 3]
// G_last: G at the chunk's last valid row, min(row + 64, T) - 1.
// CHECK: %[[END:.*]] = arith.addi %[[ROW]], %c64 : index
// CHECK: %[[LASTP1:.*]] = arith.minsi %[[END]], %[[T]] : index
// CHECK: %[[LAST:.*]] = arith.subi %[[LASTP1]], %c1 : index
// CHECK: %[[GL:.*]] = tile.load %[[KGG]][%[[BATCH]], %[[LAST]], %[[HEAD]], %c0] bounds [%c128] dims [3] : memref<?x?x8x128xf32> -> tensor<128xf32>
// One exp2 per row of K, then broadcast over the V columns.
// CHECK: %[[GLE:.*]] = math.exp2 %[[GL]] : tensor<128xf32>
// CHECK: %[[DEC:.*]] = tile.broadcast %[[GLE]] dims [1] : tensor<128xf32> -> tensor<128x32xf32>
// CHECK: %[[KG0:.*]] = tile.load %[[KKG]][%[[BATCH]], %[[ROW]], %[[HEAD]], %c0] bounds [%[[T]], %c128] dims [1, 3]
// CHECK: %[[SD:.*]] = arith.mulf %[[A0]], %[[DEC]]
// CHECK: %[[KGT:.*]] = tile.trans %[[KG0]] : tensor<64x128xbf16> -> tensor<128x64xbf16>
// CHECK: %[[N0:.*]] = tile.dot %[[KGT]], %[[VNB]], %[[SD]] : tensor<128x64xbf16>, tensor<64x32xbf16> -> tensor<128x32xf32>
// CHECK: scf.yield %[[N0]]
// CHECK: tile.store %[[LOOP]], %[[KHT]][%[[BATCH]], %[[HEAD]], %c0, %[[V0]]] dims [2, 3] : tensor<128x32xf32>, memref<?x8x128x128xf32>
func.func @fixed_kv(%kg: tensor<?x?x8x128xbf16>, %w: tensor<?x?x8x128xbf16>, %u: tensor<?x?x8x128xbf16>,
                    %G: tensor<?x?x8x128xf32>, %h0: tensor<?x8x128x128xf32>)
    -> (tensor<?x?x8x128x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x8x128x128xf32>) {
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G initial_state %h0
      : (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x128xf32>, tensor<?x8x128x128xf32>)
      -> (tensor<?x?x8x128x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x8x128x128xf32>)
  return %h, %vn, %ht : tensor<?x?x8x128x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x8x128x128xf32>
}

// -----

// Varlen, state layout vk, no initial state: one program per (V tile,
// sequence x head); the sequence's rows come from cu_seqlens and its first
// h slot is chunk_offsets[n] (summed over the earlier sequences); states
// start at 0 and are transposed to [V, K] for storing; u and v_new are f32
// beside f16 kg/w/h (the dot operands are rounded to f16).

// CHECK-LABEL: func.func @varlen_vk
// CHECK-SAME: kda.arg_dims = ["1,T,4,100", "1,T,4,100", "1,T,4,60", "1,T,4,100", "N1", "1,NT,4,60,100", "1,T,4,60", "N,4,60,100"]
// CHECK-SAME: kda.key = {HV = "4", K = "100", V = "60", chunk = "32", program = "state_scan", state_layout = "vk", varlen = "1"}
// CHECK: %[[NCU:.*]] = memref.dim %[[CU:.*]], %c0 : memref<?xi64>
// CHECK: %[[NSEQ:.*]] = arith.subi %[[NCU]], %c1 : index
// CHECK: %[[GRID:.*]] = arith.muli %[[NSEQ]], %c8 : index
// CHECK: tile.launch @varlen_vk_state_scan_0 grid [%[[GRID]],

// CHECK: func.func @varlen_vk_state_scan_0(%[[KKG:[^:]*]]: memref<1x?x4x100xf16>, %{{[^:]*}}: memref<1x?x4x100xf16>, %[[KU:[^:]*]]: memref<1x?x4x60xf32>, %{{[^:]*}}: memref<1x?x4x100xf32>, %[[KCU:[^:]*]]: memref<?xi64>, %[[KH:[^:]*]]: memref<1x?x4x60x100xf16>, %[[KVN:[^:]*]]: memref<1x?x4x60xf32>, %[[KHT:[^:]*]]: memref<?x4x60x100xf32>)
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[SH:.*]] = arith.divui %[[PID]], %c2 : index
// CHECK: %[[SEQ:.*]] = arith.divui %[[SH]], %c4 : index
// CHECK: %[[HEAD:.*]] = arith.remui %[[SH]], %c4 : index
// CHECK: %[[BOS64:.*]] = memref.load %[[KCU]][%[[SEQ]]] : memref<?xi64>
// CHECK: %[[BOS:.*]] = arith.index_cast %[[BOS64]] : i64 to index
// CHECK: %[[EOS64:.*]] = memref.load %[[KCU]][%{{.*}}] : memref<?xi64>
// CHECK: %[[EOS:.*]] = arith.index_cast %[[EOS64]] : i64 to index
// CHECK: %[[FIRST:.*]] = scf.for %{{.*}} = %c0 to %[[SEQ]] step %c1 iter_args(%{{.*}} = %c0) -> (index) {
// CHECK: arith.ceildivui %{{.*}}, %c32 : index
// CHECK: %[[ZERO:.*]] = tile.splat %{{.*}} : f32 -> tensor<128x32xf32>
// CHECK: %[[LEN:.*]] = arith.subi %[[EOS]], %[[BOS]] : index
// CHECK: %[[NC:.*]] = arith.ceildivui %[[LEN]], %c32 : index
// CHECK: %{{.*}} = scf.for %[[C:.*]] = %c0 to %[[NC]] step %c1 iter_args(%{{.*}} = %[[ZERO]]) -> (tensor<128x32xf32>)
// CHECK: %[[ROW:.*]] = arith.addi %[[BOS]], %{{.*}} : index
// CHECK: %[[SLOT:.*]] = arith.addi %[[FIRST]], %[[C]] : index
// CHECK: %[[HT0:.*]] = tile.trans %{{.*}} : tensor<128x32xf16> -> tensor<32x128xf16>
// CHECK: tile.store %[[HT0]], %[[KH]][%c0, %[[SLOT]], %[[HEAD]], %{{.*}}, %c0] dims [3, 4] : tensor<32x128xf16>, memref<1x?x4x60x100xf16>
// CHECK: tile.load %[[KU]][%c0, %[[ROW]], %[[HEAD]], %{{.*}}] bounds [%[[EOS]], %c60] dims [1, 3] : memref<1x?x4x60xf32> -> tensor<32x32xf32>
// CHECK: %[[VNF:.*]] = arith.subf
// CHECK: tile.store %[[VNF]], %[[KVN]][%c0, %[[ROW]], %[[HEAD]], %{{.*}}] bounds [%[[EOS]], %c60] dims [1, 3] : tensor<32x32xf32>, memref<1x?x4x60xf32>
// CHECK: arith.truncf %[[VNF]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK: arith.minsi %{{.*}}, %[[EOS]] : index
// CHECK: tile.trans %{{.*}} : tensor<128x32xf32> -> tensor<32x128xf32>
// CHECK: tile.store %{{.*}}, %[[KHT]][%[[SEQ]], %[[HEAD]], %{{.*}}, %c0] dims [2, 3] : tensor<32x128xf32>, memref<?x4x60x100xf32>
func.func @varlen_vk(%kg: tensor<1x?x4x100xf16>, %w: tensor<1x?x4x100xf16>, %u: tensor<1x?x4x60xf32>,
                     %G: tensor<1x?x4x100xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x4x60x100xf16>, tensor<1x?x4x60xf32>, tensor<?x4x60x100xf32>) {
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G cu_seqlens %cu
      {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x4x100xf16>, tensor<1x?x4x100xf16>, tensor<1x?x4x60xf32>, tensor<1x?x4x100xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x60x100xf16>, tensor<1x?x4x60xf32>, tensor<?x4x60x100xf32>)
  return %h, %vn, %ht : tensor<1x?x4x60x100xf16>, tensor<1x?x4x60xf32>, tensor<?x4x60x100xf32>
}

// -----

// States the function does not return are workspaces sized from kg and
// cu_seqlens: h gets floor(T / BT) + N chunk slots (a bound on the number
// of chunks), the final state N = len(cu_seqlens) - 1 slots.

// CHECK-LABEL: func.func @workspaces
// CHECK-SAME: kda.arg_names = ["kg", "w", "u", "G", "cu_seqlens", "v_new"]
// CHECK: %[[T:.*]] = memref.dim %{{.*}}, %c1 : memref<1x?x2x60xbf16>
// CHECK: %[[NCU:.*]] = memref.dim %{{.*}}, %c0 : memref<?xi64>
// CHECK: %[[NSEQ:.*]] = arith.subi %[[NCU]], %c1 : index
// CHECK: %[[FULL:.*]] = arith.divui %[[T]], %c64 : index
// CHECK: %[[SLOTS:.*]] = arith.addi %[[FULL]], %[[NSEQ]] : index
// CHECK: %[[H:.*]] = memref.alloc(%[[SLOTS]]) : memref<1x?x2x60x100xbf16>
// CHECK: %[[HT:.*]] = memref.alloc(%[[NSEQ]]) : memref<?x2x60x100xf32>
// CHECK: tile.launch @workspaces_state_scan_0 grid [{{.*}}] args({{.*}}, %[[H]], %{{.*}}, %[[HT]] :
func.func @workspaces(%kg: tensor<1x?x2x60xbf16>, %w: tensor<1x?x2x60xbf16>, %u: tensor<1x?x2x100xbf16>,
                      %G: tensor<1x?x2x60xf32>, %cu: tensor<?xi64>) -> tensor<1x?x2x100xbf16> {
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G cu_seqlens %cu
      : (tensor<1x?x2x60xbf16>, tensor<1x?x2x60xbf16>, tensor<1x?x2x100xbf16>, tensor<1x?x2x60xf32>, tensor<?xi64>)
      -> (tensor<1x?x2x60x100xbf16>, tensor<1x?x2x100xbf16>, tensor<?x2x60x100xf32>)
  return %vn : tensor<1x?x2x100xbf16>
}
