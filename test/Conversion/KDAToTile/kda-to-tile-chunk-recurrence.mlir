// RUN: kda-opt %s --split-input-file --convert-kda-to-tile --canonicalize --cse | FileCheck %s
// RUN: kda-opt %s --split-input-file --convert-kda-to-tile="tuning-override=chunk_recurrence.transpose_state=true,chunk_recurrence.threads=128" --canonicalize --cse | FileCheck %s --check-prefix=TRANS

// kda.chunk_recurrence: the state scan's kernel (one program per V tile of
// 32 columns and batch x value head, the [128, 32] f32 state carried through
// an scf.for over the chunks) in the recurrent form: per chunk
// x = rd(beta * (v - kd rd(S))), v_new = rd(tril(M) x),
// o = qg rd(S) + tril(Aqk) v_new, S = 2^G_last S + kg^T v_new, 2^G_last
// read from decay_last at the chunk's slot, already exponentiated (no exp2
// in the loop). Nothing but o and the final state is stored. The kernel
// asks for registers (its tuning; kda-to-tile-tuning.mlir).

// CHECK-LABEL: func.func @recurrence
// CHECK-SAME: kda.arg_names = ["qg", "kd", "kg", "v", "beta", "M", "Aqk", "decay_last", "initial_state", "o", "final_state"]
// CHECK-SAME: kda.key = {HV = "8", K = "128", V = "128", chunk = "64", program = "chunk_recurrence", state_layout = "kv", varlen = "0"}
// CHECK: tile.launch @recurrence_chunk_recurrence_0 grid

// CHECK: func.func @recurrence_chunk_recurrence_0(
// CHECK-SAME: attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, max_registers = 232, max_live_bytes = 32768, block_v = 32, speculate_loads = true, hoist_addresses = true, mapping = registers, stages = 2>}
// CHECK: %[[S0:.*]] = tile.load %arg8[{{.*}}] dims [2, 3] : memref<?x8x128x128xf32> -> tensor<128x32xf32>
// CHECK: scf.for %[[C:.*]] = {{.*}} iter_args(%[[S:.*]] = %[[S0]]) -> (tensor<128x32xf32>) {
// CHECK:   %[[SR:.*]] = arith.truncf %[[S]] : tensor<128x32xf32> to tensor<128x32xbf16>
// CHECK:   %[[KD:.*]] = tile.load %arg1[
// CHECK:   %[[KS:.*]] = tile.dot %[[KD]], %[[SR]], %{{.*}} : tensor<64x128xbf16>, tensor<128x32xbf16> -> tensor<64x32xf32>
// CHECK:   %[[V:.*]] = tile.load %arg3[
// CHECK:   %[[VF:.*]] = arith.extf %[[V]]
// CHECK:   %[[BETA:.*]] = tile.load %arg4[
// CHECK:   %[[BETAR:.*]] = tile.broadcast %[[BETA]] dims [1] : tensor<64xf32> -> tensor<64x32xf32>
// CHECK:   %[[T:.*]] = arith.subf %[[VF]], %[[KS]] : tensor<64x32xf32>
// CHECK:   %[[X:.*]] = arith.mulf %[[T]], %[[BETAR]] : tensor<64x32xf32>
// CHECK:   %[[XB:.*]] = arith.truncf %[[X]] : tensor<64x32xf32> to tensor<64x32xbf16>
// CHECK:   %[[M:.*]] = tile.load %arg5[
// CHECK:   %[[LOWER:.*]] = tile.tri_mask lower diagonal 0 : tensor<64x64xi1>
// CHECK:   %[[ML:.*]] = arith.select %[[LOWER]], %[[M]], %{{.*}} : tensor<64x64xi1>, tensor<64x64xbf16>
// CHECK:   %[[VN:.*]] = tile.dot %[[ML]], %[[XB]], %{{.*}} precision = tf32 : tensor<64x64xbf16>, tensor<64x32xbf16> -> tensor<64x32xf32>
// CHECK:   %[[VNB:.*]] = arith.truncf %[[VN]] : tensor<64x32xf32> to tensor<64x32xbf16>
// CHECK:   %[[QG:.*]] = tile.load %arg0[
// CHECK:   %[[INTER:.*]] = tile.dot %[[QG]], %[[SR]], %{{.*}} precision = tf32 : tensor<64x128xbf16>, tensor<128x32xbf16> -> tensor<64x32xf32>
// CHECK:   %[[A:.*]] = tile.load %arg6[
// CHECK:   %[[CAUSAL:.*]] = arith.select %[[LOWER]], %[[A]], %{{.*}} : tensor<64x64xi1>, tensor<64x64xbf16>
// CHECK:   %[[OUT:.*]] = tile.dot %[[CAUSAL]], %[[VNB]], %[[INTER]] precision = tf32 : tensor<64x64xbf16>, tensor<64x32xbf16> -> tensor<64x32xf32>
// CHECK:   %[[OB:.*]] = arith.truncf %[[OUT]] : tensor<64x32xf32> to tensor<64x32xbf16>
// CHECK:   tile.store %[[OB]], %arg9[
// CHECK:   %[[DL:.*]] = tile.load %arg7[%{{.*}}, %[[C]], %{{.*}}, %c0] bounds [%c128] dims [3] : memref<?x?x8x128xf32> -> tensor<128xf32>
// CHECK-NOT: math.exp2
// CHECK:   %[[DECAY:.*]] = tile.broadcast %[[DL]] dims [1] : tensor<128xf32> -> tensor<128x32xf32>
// CHECK:   %[[KG:.*]] = tile.load %arg2[
// CHECK:   %[[KGT:.*]] = tile.trans %[[KG]] : tensor<64x128xbf16> -> tensor<128x64xbf16>
// CHECK:   %[[NEXT:.*]] = tile.dot %[[KGT]], %[[VNB]], %{{.*}} : tensor<128x64xbf16>, tensor<64x32xbf16> -> tensor<128x32xf32>
// CHECK-NOT: tile.store
// CHECK:   scf.yield %[[NEXT]]
// CHECK: tile.store %{{.*}}, %arg10[{{.*}}] dims [2, 3] : tensor<128x32xf32>, memref<?x8x128x128xf32>
// transpose_state: the same recurrence on the transposed state S^T, a
// [64, 128] tile (16 rows of V per warp: block_v 64 by default on the 4
// warps this test asks for),
// so that the state and the dot results that feed a dot are A operands:
// x^T = rd(beta (v^T - rd(S^T) kd^T)), v_new^T = rd(x^T tril(M)^T),
// o^T = rd(S^T) qg^T + v_new^T tril(Aqk)^T (stored transposed),
// S^T = S^T 2^G_last + v_new^T kg (2^G_last read from decay_last).

// TRANS: func.func @recurrence_chunk_recurrence_0(
// TRANS-SAME: block_v = 64, {{.*}} transpose_state = true>}
// TRANS: %[[S0:.*]] = tile.load %arg8[{{.*}}] dims [2, 3] : memref<?x8x128x128xf32> -> tensor<128x64xf32>
// TRANS: %[[S0T:.*]] = tile.trans %[[S0]] : tensor<128x64xf32> -> tensor<64x128xf32>
// TRANS: scf.for %{{.*}} iter_args(%[[S:.*]] = %[[S0T]]) -> (tensor<64x128xf32>) {
// TRANS:   %[[SR:.*]] = arith.truncf %[[S]] : tensor<64x128xf32> to tensor<64x128xbf16>
// TRANS:   %[[KD:.*]] = tile.load %arg1[
// TRANS:   %[[KDT:.*]] = tile.trans %[[KD]] : tensor<64x128xbf16> -> tensor<128x64xbf16>
// TRANS:   %[[KS:.*]] = tile.dot %[[SR]], %[[KDT]], %{{.*}} : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
// TRANS:   %[[V:.*]] = tile.load %arg3[
// TRANS:   %[[VF:.*]] = arith.extf %[[V]]
// TRANS:   %[[VT:.*]] = tile.trans %[[VF]] : tensor<64x64xf32> -> tensor<64x64xf32>
// TRANS:   %[[BETA:.*]] = tile.load %arg4[
// TRANS:   %[[BETAC:.*]] = tile.broadcast %[[BETA]] dims [0] : tensor<64xf32> -> tensor<64x64xf32>
// TRANS:   %[[T:.*]] = arith.subf %[[VT]], %[[KS]]
// TRANS:   %[[X:.*]] = arith.mulf %[[T]], %[[BETAC]]
// TRANS:   %[[XB:.*]] = arith.truncf %[[X]]
// TRANS:   %[[M:.*]] = tile.load %arg5[
// TRANS:   %[[ML:.*]] = arith.select %{{.*}}, %[[M]], %{{.*}} : tensor<64x64xi1>, tensor<64x64xbf16>
// TRANS:   %[[MT:.*]] = tile.trans %[[ML]]
// TRANS:   %[[VN:.*]] = tile.dot %[[XB]], %[[MT]], %{{.*}} precision = tf32
// TRANS:   %[[VNB:.*]] = arith.truncf %[[VN]] : tensor<64x64xf32> to tensor<64x64xbf16>
// TRANS:   %[[QG:.*]] = tile.load %arg0[
// TRANS:   %[[QGT:.*]] = tile.trans %[[QG]] : tensor<64x128xbf16> -> tensor<128x64xbf16>
// TRANS:   %[[INTER:.*]] = tile.dot %[[SR]], %[[QGT]], %{{.*}} precision = tf32 : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
// TRANS:   %[[A:.*]] = tile.load %arg6[
// TRANS:   %[[AL:.*]] = arith.select %{{.*}}, %[[A]], %{{.*}} : tensor<64x64xi1>, tensor<64x64xbf16>
// TRANS:   %[[AT:.*]] = tile.trans %[[AL]]
// TRANS:   %[[OUT:.*]] = tile.dot %[[VNB]], %[[AT]], %[[INTER]] precision = tf32
// TRANS:   %[[OB:.*]] = arith.truncf %[[OUT]]
// TRANS:   %[[OT:.*]] = tile.trans %[[OB]]
// TRANS:   tile.store %[[OT]], %arg9[
// TRANS:   %[[DL:.*]] = tile.load %arg7[
// TRANS-NOT: math.exp2
// TRANS:   %[[DECAY:.*]] = tile.broadcast %[[DL]] dims [0] : tensor<128xf32> -> tensor<64x128xf32>
// TRANS:   %[[KG:.*]] = tile.load %arg2[
// TRANS:   %[[SD:.*]] = arith.mulf %[[S]], %[[DECAY]] : tensor<64x128xf32>
// TRANS:   %[[NEXT:.*]] = tile.dot %[[VNB]], %[[KG]], %[[SD]] : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
// TRANS:   scf.yield %[[NEXT]]
// TRANS: %[[ST:.*]] = tile.trans %{{.*}} : tensor<64x128xf32> -> tensor<128x64xf32>
// TRANS: tile.store %[[ST]], %arg10[{{.*}}] dims [2, 3] : tensor<128x64xf32>, memref<?x8x128x128xf32>
func.func @recurrence(%qg: tensor<?x?x8x128xbf16>, %kd: tensor<?x?x8x128xbf16>,
    %kg: tensor<?x?x8x128xbf16>, %v: tensor<?x?x8x128xbf16>, %beta: tensor<?x?x8xf32>,
    %M: tensor<?x?x8x64xbf16>, %Aqk: tensor<?x?x8x64xbf16>, %dl: tensor<?x?x8x128xf32>,
    %h0: tensor<?x8x128x128xf32>)
    -> (tensor<?x?x8x128xbf16>, tensor<?x8x128x128xf32>) {
  %o, %ht = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl initial_state %h0
      : (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
         tensor<?x?x8x128xbf16>, tensor<?x?x8xf32>, tensor<?x?x8x64xbf16>,
         tensor<?x?x8x64xbf16>, tensor<?x?x8x128xf32>, tensor<?x8x128x128xf32>)
      -> (tensor<?x?x8x128xbf16>, tensor<?x8x128x128xf32>)
  return %o, %ht : tensor<?x?x8x128xbf16>, tensor<?x8x128x128xf32>
}

// -----

// f32 I/O: the dots that read M, qg and Aqk take f32 operands at tf32 (M
// and x rounded to f32 first); kd and kg meet the state at ieee.

// CHECK-LABEL: func.func @recurrence_f32
// CHECK: func.func @recurrence_f32_chunk_recurrence_0(
// CHECK: scf.for
// CHECK:   tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
// CHECK:   tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision = tf32 : tensor<64x64xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
// CHECK:   tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision = tf32 : tensor<64x64xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
// CHECK:   tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision = tf32 : tensor<64x64xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
// CHECK:   tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
func.func @recurrence_f32(%qg: tensor<?x?x2x64xf32>, %kd: tensor<?x?x2x64xf32>,
    %kg: tensor<?x?x2x64xf32>, %v: tensor<?x?x2x32xf32>, %beta: tensor<?x?x2xf32>,
    %M: tensor<?x?x2x64xf32>, %Aqk: tensor<?x?x2x64xf32>, %dl: tensor<?x?x2x64xf32>)
    -> tensor<?x?x2x32xf32> {
  %o = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl
      : (tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>,
         tensor<?x?x2x32xf32>, tensor<?x?x2xf32>, tensor<?x?x2x64xf32>,
         tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>)
      -> tensor<?x?x2x32xf32>
  return %o : tensor<?x?x2x32xf32>
}

// -----

// kda.decay_apply: one program per chunk and batch x value head (partition
// chunks32, like the other per-chunk stages), K tiles of 64 columns; q and k
// at the value head's q head (GVA), G at the value head:
// qg = rd(scale q 2^G), kd = rd(k 2^G), kg = rd(k 2^(G_last - G)), and
// 2^G_last stored at the program's chunk slot of decay_last.

// CHECK-LABEL: func.func @decay
// CHECK-SAME: kda.arg_names = ["q", "k", "G", "qg", "kd", "kg", "decay_last"]
// CHECK-SAME: kda.key = {H = "4", HV = "8", K = "100", chunk = "32", program = "decay_apply", scale = "0.100000001", varlen = "0"}
// CHECK: tile.launch @decay_decay_apply_0 grid [{{.*}}] args({{.*}}) {tile.partition = "chunks32"}
// CHECK: func.func @decay_decay_apply_0(
// CHECK-SAME: attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>}
// CHECK: %[[CHUNK:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK: %[[HEAD:.*]] = arith.remui %{{.*}}, %c8 : index
// CHECK: %[[QHEAD:.*]] = arith.divui %[[HEAD]], %c2 : index
// CHECK: scf.for %[[COL:.*]] = %c0 to %c100 step %c64 {
// CHECK:   %[[G:.*]] = tile.load %arg2[%{{.*}}, %{{.*}}, %[[HEAD]], %[[COL]]] {{.*}} -> tensor<32x64xf32>
// CHECK:   %[[E:.*]] = math.exp2 %[[G]] : tensor<32x64xf32>
// CHECK:   %[[Q:.*]] = tile.load %arg0[%{{.*}}, %{{.*}}, %[[QHEAD]], %[[COL]]]
// CHECK:   %[[K:.*]] = tile.load %arg1[%{{.*}}, %{{.*}}, %[[QHEAD]], %[[COL]]]
// CHECK:   %[[KF:.*]] = arith.extf %[[K]]
// CHECK:   %[[QS:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<32x64xf32>
// CHECK:   %[[QG:.*]] = arith.mulf %[[QS]], %[[E]] : tensor<32x64xf32>
// CHECK:   %[[QGH:.*]] = arith.truncf %[[QG]] : tensor<32x64xf32> to tensor<32x64xf16>
// CHECK:   tile.store %[[QGH]], %arg3[
// CHECK:   %[[KD:.*]] = arith.mulf %[[KF]], %[[E]] : tensor<32x64xf32>
// CHECK:   %[[KDH:.*]] = arith.truncf %[[KD]]
// CHECK:   tile.store %[[KDH]], %arg4[
// CHECK:   %[[GL:.*]] = tile.load %arg2[{{.*}}] bounds [%c100] dims [3] : memref<?x?x8x100xf32> -> tensor<64xf32>
// CHECK:   %[[GLR:.*]] = tile.broadcast %[[GL]] dims [0] : tensor<64xf32> -> tensor<32x64xf32>
// CHECK:   %[[DG:.*]] = arith.subf %[[GLR]], %[[G]] : tensor<32x64xf32>
// CHECK:   %[[D:.*]] = math.exp2 %[[DG]] : tensor<32x64xf32>
// CHECK:   %[[KG:.*]] = arith.mulf %[[KF]], %[[D]] : tensor<32x64xf32>
// CHECK:   %[[KGH:.*]] = arith.truncf %[[KG]]
// CHECK:   tile.store %[[KGH]], %arg5[
// CHECK:   %[[DL:.*]] = math.exp2 %[[GL]] : tensor<64xf32>
// CHECK:   tile.store %[[DL]], %arg6[%{{.*}}, %[[CHUNK]], %[[HEAD]], %[[COL]]] bounds [%c100] dims [3] : tensor<64xf32>, memref<?x?x8x100xf32>
func.func @decay(%q: tensor<?x?x4x100xf16>, %k: tensor<?x?x4x100xf16>, %G: tensor<?x?x8x100xf32>)
    -> (tensor<?x?x8x100xf16>, tensor<?x?x8x100xf16>, tensor<?x?x8x100xf16>, tensor<?x?x8x100xf32>) {
  %qg, %kd, %kg, %dl = kda.decay_apply %q, %k, %G {chunk_size = 32 : i64, scale = 0.1 : f32}
      : (tensor<?x?x4x100xf16>, tensor<?x?x4x100xf16>, tensor<?x?x8x100xf32>)
      -> (tensor<?x?x8x100xf16>, tensor<?x?x8x100xf16>, tensor<?x?x8x100xf16>, tensor<?x?x8x100xf32>)
  return %qg, %kd, %kg, %dl : tensor<?x?x8x100xf16>, tensor<?x?x8x100xf16>, tensor<?x?x8x100xf16>, tensor<?x?x8x100xf32>
}
