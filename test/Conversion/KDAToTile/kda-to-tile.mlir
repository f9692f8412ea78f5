// RUN: kda-opt %s --split-input-file --convert-kda-to-tile | FileCheck %s
// RUN: kda-opt %s --split-input-file --convert-kda-to-tile=approximate-sigmoid | FileCheck %s --check-prefix=APPROX

// A precomputed gate: the host function becomes destination-passing on
// memrefs and launches one kernel over K tiles x chunks x (B * HV) programs,
// all along the grid's x axis.

// CHECK-LABEL: func.func @gate_precomputed
// CHECK-SAME: (%[[G:.*]]: memref<?x?x4x64xf32>, %[[OUT:.*]]: memref<?x?x4x64xf32>)
// CHECK-SAME: attributes {kda.arg_dims = ["B,T,4,64", "B,T,4,64"], kda.arg_names = ["g", "G"], kda.entry,
// CHECK-SAME: kda.key = {HV = "4", K = "64", chunk = "64", gate = "precomputed", program = "gate_cumsum", varlen = "0"}, kda.num_inputs = 1 : i64}
// CHECK-DAG: %[[T:.*]] = memref.dim %[[G]], %{{.*}} : memref<?x?x4x64xf32>
// CHECK-DAG: %[[NT:.*]] = arith.ceildivui %[[T]], %{{.*}} : index
// CHECK-DAG: %[[B:.*]] = memref.dim %[[G]], %{{.*}} : memref<?x?x4x64xf32>
// CHECK-DAG: %[[NB:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK-DAG: %[[NKT:.*]] = arith.muli %{{.*}}, %[[NT]] : index
// CHECK: %[[N:.*]] = arith.muli %[[NKT]], %[[NB]] : index
// CHECK: tile.launch @gate_precomputed_gate_cumsum_0 grid [%[[N]], %{{.*}}, %{{.*}}] args(%[[G]], %[[OUT]] : memref<?x?x4x64xf32>, memref<?x?x4x64xf32>)
// CHECK-NEXT: return
// CHECK: func.func @gate_precomputed_gate_cumsum_0(%[[KG:.*]]: memref<?x?x4x64xf32>, %[[KOUT:.*]]: memref<?x?x4x64xf32>)
// CHECK-SAME: attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128, block_k = 64>}
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[KT:.*]] = arith.remui %[[PID]], %{{.*}} : index
// CHECK: %[[REST:.*]] = arith.divui %[[PID]], %{{.*}} : index
// CHECK: %[[CHUNK:.*]] = arith.remui %[[REST]], %{{.*}} : index
// CHECK: %[[BH:.*]] = arith.divui %[[REST]], %{{.*}} : index
// CHECK-NOT: tile.program_id
// CHECK: scf.if
// CHECK: %[[X:.*]] = tile.load %[[KG]][{{.*}}] bounds [{{.*}}] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<64x64xf32>
// CHECK: %[[S:.*]] = tile.scan add %[[X]] dim 0 : tensor<64x64xf32>
// CHECK: %[[L:.*]] = tile.splat %{{.*}} : f32 -> tensor<64x64xf32>
// CHECK: %[[R:.*]] = arith.mulf %[[S]], %[[L]] : tensor<64x64xf32>
// CHECK: tile.store %[[R]], %[[KOUT]][{{.*}}] bounds [{{.*}}] dims [1, 3]
func.func @gate_precomputed(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}

// -----

// Varlen: floor(T / BT) + N chunk programs per (K tile, batch x head), each
// finding its sequence with tile.varlen_chunk; K = 60 is covered by one
// 64-wide tile (a precomputed gate's K tiles are 64 wide).

// CHECK-LABEL: func.func @gate_varlen
// CHECK-SAME: (%[[G:.*]]: memref<1x?x2x60xbf16>, %[[CU:.*]]: memref<?xi64>, %[[OUT:.*]]: memref<1x?x2x60xf32>)
// CHECK-SAME: kda.arg_dims = ["1,T,2,60", "N1", "1,T,2,60"], kda.arg_names = ["g", "cu_seqlens", "G"]
// CHECK-SAME: chunk = "32"
// CHECK-SAME: varlen = "1"
// CHECK-DAG: %[[LEN:.*]] = memref.dim %[[CU]], %{{.*}} : memref<?xi64>
// CHECK-DAG: %[[N:.*]] = arith.subi %[[LEN]], %{{.*}} : index
// CHECK-DAG: %[[FULL:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK-DAG: %[[NT:.*]] = arith.addi %[[FULL]], %[[N]] : index
// CHECK: tile.launch @gate_varlen_gate_cumsum_0 grid [%{{.*}}, %{{.*}}, %{{.*}}] args(%[[G]], %[[OUT]], %[[CU]] :
// CHECK: func.func @gate_varlen_gate_cumsum_0
// CHECK: %{{.*}}, %[[C:.*]], %[[BOS:.*]], %[[LENGTH:.*]], %[[OK:.*]] = tile.varlen_chunk %{{.*}}, %{{.*}} chunk_size 32 : memref<?xi64>
// CHECK: scf.if %[[OK]]
// CHECK: tile.load {{.*}} : memref<1x?x2x60xbf16> -> tensor<32x64xbf16>
// CHECK: arith.extf {{.*}} : tensor<32x64xbf16> to tensor<32x64xf32>
// CHECK: tile.scan add
func.func @gate_varlen(%g: tensor<1x?x2x60xbf16>, %cu: tensor<?xi64>) -> tensor<1x?x2x60xf32> {
  %G = kda.gate_cumsum %g cu_seqlens %cu {chunk_size = 32 : i64}
      : (tensor<1x?x2x60xbf16>, tensor<?xi64>) -> tensor<1x?x2x60xf32>
  return %G : tensor<1x?x2x60xf32>
}

// -----

// The softplus gate: -exp(A_log[h]) * softplus(g + dt_bias[h, :]).

// CHECK-LABEL: func.func @gate_softplus_gate_cumsum_0
// CHECK: %[[DT:.*]] = tile.load %{{.*}}[%{{.*}}, %{{.*}}] bounds [%{{.*}}] dims [1] : memref<4x64xf32> -> tensor<32xf32>
// CHECK: %[[ROWS:.*]] = tile.broadcast %[[DT]] dims [0] : tensor<32xf32> -> tensor<64x32xf32>
// CHECK: %[[A:.*]] = arith.addf %{{.*}}, %[[ROWS]] : tensor<64x32xf32>
// CHECK: %[[ALOG:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK: %[[E:.*]] = math.exp %[[ALOG]] : f32
// CHECK: arith.negf %[[E]] : f32
// CHECK: arith.cmpf ogt, %[[A]]
// CHECK: math.exp %[[A]] : tensor<64x32xf32>
// CHECK: math.log1p
// CHECK: arith.select
// CHECK: tile.scan add
func.func @gate_softplus(%g: tensor<?x?x4x64xf32>, %a: tensor<4xf32>, %dt: tensor<4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g a_log %a dt_bias %dt {gate_mode = #kda<gate_mode softplus>}
      : (tensor<?x?x4x64xf32>, tensor<4xf32>, tensor<4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}

// -----

// The lower-bound gate without A_log, with dt_bias given flat as [HV * K]:
// lower_bound * sigmoid(g + dt_bias).

// CHECK-LABEL: func.func @gate_lower_bound_gate_cumsum_0
// CHECK: tile.load %{{.*}}[%{{.*}}] bounds [%{{.*}}] dims [0] : memref<256xf32> -> tensor<32xf32>
// CHECK-NOT: memref.load
// CHECK: arith.negf %{{.*}} : tensor<64x32xf32>
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: arith.constant -5.000000e+00 : f32
// CHECK: tile.scan add
// With approximate-sigmoid: -5 / (1 + 2^(-x log2(e))), an exp2 and a
// division that may be approximate (fastmath afn).
// APPROX-LABEL: func.func @gate_lower_bound_gate_cumsum_0
// APPROX-NOT: math.exp %
// APPROX: arith.constant -1.4426950{{[0-9]*}} : f32
// APPROX: %[[SCALED:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<64x32xf32>
// APPROX: %[[POW:.*]] = math.exp2 %[[SCALED]] : tensor<64x32xf32>
// APPROX: %[[DEN:.*]] = arith.addf %{{.*}}, %[[POW]] : tensor<64x32xf32>
// APPROX: %[[LB:.*]] = arith.constant -5.000000e+00 : f32
// APPROX: %[[LBS:.*]] = tile.splat %[[LB]]
// APPROX: arith.divf %[[LBS]], %[[DEN]] fastmath<afn> : tensor<64x32xf32>
// APPROX: tile.scan add
func.func @gate_lower_bound(%g: tensor<?x?x4x64xf32>, %dt: tensor<256xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g dt_bias %dt {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32}
      : (tensor<?x?x4x64xf32>, tensor<256xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}

// -----

// Two stages: the intermediate gets a workspace allocation sized like its
// input, the returned value the output argument.

// CHECK-LABEL: func.func @two_gates
// CHECK-SAME: (%[[G:.*]]: memref<?x?x4x64xf32>, %[[OUT:.*]]: memref<?x?x4x64xf32>)
// CHECK: %[[WS:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?x4x64xf32>
// CHECK: tile.launch @two_gates_gate_cumsum_0 {{.*}} args(%[[G]], %[[WS]] :
// CHECK: tile.launch @two_gates_gate_cumsum_1 {{.*}} args(%[[WS]], %[[OUT]] :
func.func @two_gates(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  %G2 = kda.gate_cumsum %G : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G2 : tensor<?x?x4x64xf32>
}

// -----

// Functions without kda ops are left alone.

// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
func.func @plain(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
