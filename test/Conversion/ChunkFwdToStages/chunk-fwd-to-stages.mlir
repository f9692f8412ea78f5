// RUN: kda-opt %s --convert-chunk-fwd-to-stages --split-input-file --verify-diagnostics | FileCheck %s

// Default flags: the gate, the diagonal blocks, the seed kernel, the WY
// recompute, the state scan and the output, with scale = K^-0.5 and the key
// of the whole forward on the function.

// CHECK-LABEL: func.func @fwd(
// CHECK-SAME: kda.program_key = {{{.*}}K = "64", V = "128"{{.*}}final_state = "0"{{.*}}gate = "precomputed"{{.*}}l2norm = "0"{{.*}}program = "chunk_fwd"{{.*}}scale = "0.125"{{.*}}state_layout = "kv"{{.*}}varlen = "0"}
// CHECK-NOT: kda.l2norm
// CHECK-NOT: kda.beta_activation
// CHECK: %[[G:.*]] = kda.gate_cumsum %arg3 :
// CHECK: %[[AQK:.*]], %[[AKKD:.*]] = kda.intra_diag %arg0, %arg1, %[[G]], %arg4 {scale = 1.250000e-01 : f32}
// CHECK: %[[AQK2:.*]], %[[M:.*]] = kda.inter_solve %arg0, %arg1, %[[G]], %arg4, %[[AQK]], %[[AKKD]] {scale = 1.250000e-01 : f32}
// CHECK: %[[W:.*]], %[[U:.*]], %[[KG:.*]] = kda.wy_recompute %arg1, %arg2, %[[G]], %arg4, %[[M]] :
// CHECK: %[[H:.*]], %[[VN:.*]] = kda.state_scan %[[KG]], %[[W]], %[[U]], %[[G]] :
// CHECK-SAME: -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
// CHECK: %[[O:.*]] = kda.output %arg0, %[[G]], %[[AQK2]], %[[H]], %[[VN]] {scale = 1.250000e-01 : f32}
// CHECK: return %[[O]]
func.func @fwd(%q: tensor<2x?x4x64xbf16>, %k: tensor<2x?x4x64xbf16>,
               %v: tensor<2x?x8x128xbf16>, %g: tensor<2x?x8x64xf32>,
               %beta: tensor<2x?x8xf32>) -> tensor<2x?x8x128xbf16> {
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x128xbf16>,
         tensor<2x?x8x64xf32>, tensor<2x?x8xf32>) -> tensor<2x?x8x128xbf16>
  return %o : tensor<2x?x8x128xbf16>
}

// -----

// Every option: l2norm of q and k, beta logits with allow_neg_eigval, the
// lower-bound gate, safe_gate, varlen, a vk initial and final state, chunk
// 32 and an explicit scale.

// CHECK-LABEL: func.func @fwd_flags(
// CHECK-SAME: allow_neg_eigval = "1"{{.*}}beta_sigmoid = "1"{{.*}}chunk = "32"{{.*}}final_state = "1"{{.*}}gate = "lower_bound"{{.*}}initial_state = "1"{{.*}}l2norm = "1"{{.*}}lower_bound = "-5"{{.*}}safe_gate = "1"{{.*}}scale = "0.5"{{.*}}state_layout = "vk"{{.*}}varlen = "1"
// CHECK: %[[QN:.*]] = kda.l2norm %arg0 {kda.input_name = "q"}
// CHECK: %[[KN:.*]] = kda.l2norm %arg1 {kda.input_name = "k"}
// CHECK: %[[B:.*]] = kda.beta_activation %arg4 {allow_neg_eigval, kda.input_name = "beta"}
// CHECK: %[[G:.*]] = kda.gate_cumsum %arg3 a_log %arg5 dt_bias %arg6 cu_seqlens %arg8 {chunk_size = 32 : i64, gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.000000e+00 : f32}
// CHECK: kda.intra_diag %[[QN]], %[[KN]], %[[G]], %[[B]] cu_seqlens %arg8 {chunk_size = 32 : i64, safe_gate, scale = 5.000000e-01 : f32}
// CHECK: kda.inter_solve %[[QN]], %[[KN]], %[[G]], %[[B]], {{.*}} cu_seqlens %arg8 {{{.*}}safe_gate
// CHECK: kda.wy_recompute %[[KN]], %arg2, %[[G]], %[[B]]
// CHECK: %{{.*}}, %{{.*}}, %[[HT:.*]] = kda.state_scan {{.*}} initial_state %arg7 cu_seqlens %arg8 {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
// CHECK-SAME: -> (tensor<1x?x4x128x64xbf16>, tensor<1x?x4x128xbf16>, tensor<?x4x128x64xf32>)
// CHECK: %[[O:.*]] = kda.output %[[QN]], %[[G]]
// CHECK: return %[[O]], %[[HT]]
func.func @fwd_flags(%q: tensor<1x?x4x64xbf16>, %k: tensor<1x?x4x64xbf16>,
                     %v: tensor<1x?x4x128xbf16>, %g: tensor<1x?x4x64xbf16>,
                     %beta: tensor<1x?x4xbf16>, %A: tensor<4xf32>,
                     %dt: tensor<256xf32>, %h0: tensor<?x4x128x64xf32>,
                     %cu: tensor<?xi64>)
    -> (tensor<1x?x4x128xbf16>, tensor<?x4x128x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %A dt_bias %dt
      initial_state %h0 cu_seqlens %cu
      {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32,
       safe_gate, use_qk_l2norm, use_beta_sigmoid, allow_neg_eigval,
       chunk_size = 32 : i64, scale = 0.5 : f32,
       state_layout = #kda<state_layout vk>}
      : (tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>, tensor<1x?x4x128xbf16>,
         tensor<1x?x4x64xbf16>, tensor<1x?x4xbf16>, tensor<4xf32>,
         tensor<256xf32>, tensor<?x4x128x64xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x128xbf16>, tensor<?x4x128x64xf32>)
  return %o, %ht : tensor<1x?x4x128xbf16>, tensor<?x4x128x64xf32>
}

// -----

// The stages of a chunk_fwd are the whole launch plan of its function.

func.func @fwd_and_more(%q: tensor<1x?x1x64xf32>, %k: tensor<1x?x1x64xf32>,
                        %v: tensor<1x?x1x64xf32>, %g: tensor<1x?x1x64xf32>,
                        %beta: tensor<1x?x1xf32>)
    -> (tensor<1x?x1x64xf32>, tensor<1x?x1x64xf32>) {
  // expected-error @+1 {{'kda.chunk_fwd' op must be the only kda op of its function (its stages form the function's launch plan)}}
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<1x?x1x64xf32>, tensor<1x?x1x64xf32>, tensor<1x?x1x64xf32>,
         tensor<1x?x1x64xf32>, tensor<1x?x1xf32>) -> tensor<1x?x1x64xf32>
  %G = kda.gate_cumsum %g : (tensor<1x?x1x64xf32>) -> tensor<1x?x1x64xf32>
  return %o, %G : tensor<1x?x1x64xf32>, tensor<1x?x1x64xf32>
}
