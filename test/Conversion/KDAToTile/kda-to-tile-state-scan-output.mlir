// RUN: kda-opt %s --split-input-file --convert-kda-to-tile --canonicalize --cse | FileCheck %s

// kda.state_scan_output: the state scan's kernel (one program per V tile of
// 32 columns and batch x value head, the [128, 32] f32 state carried
// through an scf.for over the chunks) with each chunk's output computed
// between v_new = u - w rd(S) and the state update:
// o = rd(scale * q * 2^G) rd(S) + tril(Aqk) v_new. Neither h nor v_new is
// stored; q is read at the q head of the value head (GVA: head / (HV / H)).

// CHECK-LABEL: func.func @fused
// CHECK-SAME: kda.arg_dims = ["B,T,8,128", "B,T,8,128", "B,T,8,128", "B,T,8,128", "B,T,4,128", "B,T,8,64", "N,8,128,128", "B,T,8,128", "N,8,128,128"]
// CHECK-SAME: kda.arg_names = ["kg", "w", "u", "G", "q", "Aqk", "initial_state", "o", "final_state"]
// CHECK-SAME: kda.key = {H = "4", HV = "8", K = "128", V = "128", chunk = "64", program = "state_scan_output", scale = "0.125", state_layout = "kv", varlen = "0"}
// CHECK: tile.launch @fused_state_scan_output_0 grid [%{{.*}}, %{{.*}}, %{{.*}}] args(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8 :

// CHECK: func.func @fused_state_scan_output_0(
// CHECK-SAME: attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128, max_live_bytes = 32768, block_v = 32>}
// CHECK: %[[HEAD:.*]] = arith.remui %{{.*}}, %c8 : index
// CHECK: %[[QHEAD:.*]] = arith.divui %[[HEAD]], %c2 : index
// CHECK: %[[S0:.*]] = tile.load %arg6[{{.*}}] dims [2, 3] : memref<?x8x128x128xf32> -> tensor<128x32xf32>
// CHECK: scf.for {{.*}} iter_args(%[[S:.*]] = %[[S0]]) -> (tensor<128x32xf32>) {
// CHECK:   %[[SR:.*]] = arith.truncf %[[S]] : tensor<128x32xf32> to tensor<128x32xbf16>
// CHECK-NOT: tile.store
// CHECK:   %[[WS:.*]] = tile.dot %{{.*}}, %[[SR]], %{{.*}} : tensor<64x128xbf16>, tensor<128x32xbf16> -> tensor<64x32xf32>
// CHECK:   %[[VN:.*]] = arith.subf %{{.*}}, %[[WS]] : tensor<64x32xf32>
// CHECK:   %[[VNB:.*]] = arith.truncf %[[VN]] : tensor<64x32xf32> to tensor<64x32xbf16>
// CHECK-NOT: tile.store
// CHECK:   %[[G:.*]] = tile.load %arg3[
// CHECK:   %[[EG:.*]] = math.exp2 %[[G]] : tensor<64x128xf32>
// CHECK:   %[[Q:.*]] = tile.load %arg4[%{{.*}}, %{{.*}}, %[[QHEAD]], %c0]
// CHECK:   %[[QF:.*]] = arith.extf %[[Q]]
// CHECK:   %[[QG:.*]] = arith.mulf %[[QF]], %[[EG]] : tensor<64x128xf32>
// CHECK:   %[[QGS:.*]] = arith.mulf %[[QG]], %{{.*}} : tensor<64x128xf32>
// CHECK:   %[[QGB:.*]] = arith.truncf %[[QGS]] : tensor<64x128xf32> to tensor<64x128xbf16>
// CHECK:   %[[INTER:.*]] = tile.dot %[[QGB]], %[[SR]], %{{.*}} precision = tf32 : tensor<64x128xbf16>, tensor<128x32xbf16> -> tensor<64x32xf32>
// CHECK:   %[[A:.*]] = tile.load %arg5[
// CHECK:   %[[CAUSAL:.*]] = arith.select %{{.*}}, %[[A]], %{{.*}} : tensor<64x64xi1>, tensor<64x64xbf16>
// CHECK:   %[[OUT:.*]] = tile.dot %[[CAUSAL]], %[[VNB]], %[[INTER]] precision = tf32 : tensor<64x64xbf16>, tensor<64x32xbf16> -> tensor<64x32xf32>
// CHECK:   %[[OB:.*]] = arith.truncf %[[OUT]] : tensor<64x32xf32> to tensor<64x32xbf16>
// CHECK:   tile.store %[[OB]], %arg7[
// CHECK:   tile.dot %{{.*}}, %[[VNB]], %{{.*}} : tensor<128x64xbf16>, tensor<64x32xbf16> -> tensor<128x32xf32>
// CHECK: tile.store %{{.*}}, %arg8[{{.*}}] dims [2, 3] : tensor<128x32xf32>, memref<?x8x128x128xf32>
func.func @fused(%kg: tensor<?x?x8x128xbf16>, %w: tensor<?x?x8x128xbf16>,
                 %u: tensor<?x?x8x128xbf16>, %G: tensor<?x?x8x128xf32>,
                 %q: tensor<?x?x4x128xbf16>, %Aqk: tensor<?x?x8x64xbf16>,
                 %h0: tensor<?x8x128x128xf32>)
    -> (tensor<?x?x8x128xbf16>, tensor<?x8x128x128xf32>) {
  %o, %ht = kda.state_scan_output %kg, %w, %u, %G, %q, %Aqk initial_state %h0 {scale = 0.125 : f32}
      : (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
         tensor<?x?x8x128xf32>, tensor<?x?x4x128xbf16>, tensor<?x?x8x64xbf16>,
         tensor<?x8x128x128xf32>)
      -> (tensor<?x?x8x128xbf16>, tensor<?x8x128x128xf32>)
  return %o, %ht : tensor<?x?x8x128xbf16>, tensor<?x8x128x128xf32>
}

// -----

// f32 I/O with K = 256: four state tiles of [64, 32]; each K tile of
// rd(q * 2^G) is dotted right away at tf32, and the scale multiplies the
// inter-chunk term after the four dots.

// CHECK-LABEL: func.func @fused_f32_k256_state_scan_output_0(
// CHECK: scf.for {{.*}} -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) {
// CHECK-COUNT-4: tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision = tf32 : tensor<64x64xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
// CHECK: %[[INTER:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<64x32xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %[[INTER]] precision = tf32 : tensor<64x64xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
func.func @fused_f32_k256(%kg: tensor<1x?x2x256xf32>, %w: tensor<1x?x2x256xf32>,
                          %u: tensor<1x?x2x64xf32>, %G: tensor<1x?x2x256xf32>,
                          %q: tensor<1x?x2x256xf32>, %Aqk: tensor<1x?x2x64xf32>,
                          %cu: tensor<?xi64>) -> tensor<1x?x2x64xf32> {
  %o = kda.state_scan_output %kg, %w, %u, %G, %q, %Aqk cu_seqlens %cu {scale = 0.0625 : f32}
      : (tensor<1x?x2x256xf32>, tensor<1x?x2x256xf32>, tensor<1x?x2x64xf32>,
         tensor<1x?x2x256xf32>, tensor<1x?x2x256xf32>, tensor<1x?x2x64xf32>, tensor<?xi64>)
      -> tensor<1x?x2x64xf32>
  return %o : tensor<1x?x2x64xf32>
}
