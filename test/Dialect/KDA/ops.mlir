// RUN: kda-opt %s | kda-opt | FileCheck %s

// Round trip of every kda op, with optional operands and attributes absent
// and present. Default-valued attributes are elided when printed.

//===----------------------------------------------------------------------===//
// kda.l2norm
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @l2norm_default
func.func @l2norm_default(%x: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
  // CHECK: kda.l2norm %{{[a-z0-9_]+}} : (tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16>
  %y = kda.l2norm %x : (tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16>
  return %y : tensor<?x?x4x64xbf16>
}

// CHECK-LABEL: func.func @l2norm_default_eps_elided
func.func @l2norm_default_eps_elided(%x: tensor<2x?x4x64xf16>) -> tensor<2x?x4x64xf16> {
  // CHECK: kda.l2norm %{{[a-z0-9_]+}} : (tensor<2x?x4x64xf16>) -> tensor<2x?x4x64xf16>
  %y = kda.l2norm %x {eps = 1.0e-6 : f32} : (tensor<2x?x4x64xf16>) -> tensor<2x?x4x64xf16>
  return %y : tensor<2x?x4x64xf16>
}

// CHECK-LABEL: func.func @l2norm_eps
func.func @l2norm_eps(%x: tensor<1x100x2x256xf32>) -> tensor<1x100x2x256xf32> {
  // CHECK: kda.l2norm %{{[a-z0-9_]+}} {eps = 1.250000e-01 : f32} : (tensor<1x100x2x256xf32>) -> tensor<1x100x2x256xf32>
  %y = kda.l2norm %x {eps = 0.125 : f32} : (tensor<1x100x2x256xf32>) -> tensor<1x100x2x256xf32>
  return %y : tensor<1x100x2x256xf32>
}

//===----------------------------------------------------------------------===//
// kda.beta_activation
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @beta_activation_default
func.func @beta_activation_default(%b: tensor<?x?x8xbf16>) -> tensor<?x?x8xf32> {
  // CHECK: kda.beta_activation %{{[a-z0-9_]+}} : (tensor<?x?x8xbf16>) -> tensor<?x?x8xf32>
  %beta = kda.beta_activation %b : (tensor<?x?x8xbf16>) -> tensor<?x?x8xf32>
  return %beta : tensor<?x?x8xf32>
}

// CHECK-LABEL: func.func @beta_activation_neg_eigval
func.func @beta_activation_neg_eigval(%b: tensor<2x96x8xf32>) -> tensor<2x96x8xf32> {
  // CHECK: kda.beta_activation %{{[a-z0-9_]+}} {allow_neg_eigval} : (tensor<2x96x8xf32>) -> tensor<2x96x8xf32>
  %beta = kda.beta_activation %b {allow_neg_eigval} : (tensor<2x96x8xf32>) -> tensor<2x96x8xf32>
  return %beta : tensor<2x96x8xf32>
}

//===----------------------------------------------------------------------===//
// kda.gate_cumsum (see also gate-cumsum-ops.mlir)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @gate_cumsum_softplus
func.func @gate_cumsum_softplus(%g: tensor<2x?x8x64xf32>, %a: tensor<8xf32>,
    %dt: tensor<512xf32>) -> tensor<2x?x8x64xf32> {
  // CHECK: kda.gate_cumsum %{{[a-z0-9_]+}} a_log %{{[a-z0-9_]+}} dt_bias %{{[a-z0-9_]+}} {gate_mode = #kda<gate_mode softplus>} : (tensor<2x?x8x64xf32>, tensor<8xf32>, tensor<512xf32>) -> tensor<2x?x8x64xf32>
  %G = kda.gate_cumsum %g a_log %a dt_bias %dt {gate_mode = #kda<gate_mode softplus>}
      : (tensor<2x?x8x64xf32>, tensor<8xf32>, tensor<512xf32>) -> tensor<2x?x8x64xf32>
  return %G : tensor<2x?x8x64xf32>
}

//===----------------------------------------------------------------------===//
// kda.intra_diag
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @intra_diag_default
func.func @intra_diag_default(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>,
    %G: tensor<?x?x8x64xf32>, %beta: tensor<?x?x8xf32>)
    -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x16xf32>) {
  // CHECK: %{{.*}}, %{{.*}} = kda.intra_diag %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {scale = 1.250000e-01 : f32} : (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x8x64xf32>, tensor<?x?x8xf32>) -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x16xf32>)
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.125 : f32}
      : (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x8x64xf32>, tensor<?x?x8xf32>)
      -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x8x64xbf16>, tensor<?x?x8x16xf32>
}

// CHECK-LABEL: func.func @intra_diag_varlen_safe_gate
func.func @intra_diag_varlen_safe_gate(%q: tensor<1x?x2x128xf16>, %k: tensor<1x?x2x128xf16>,
    %G: tensor<1x?x4x128xf32>, %beta: tensor<1x?x4xf16>, %cu: tensor<?xi64>)
    -> (tensor<1x?x4x32xf16>, tensor<1x?x4x16xf32>) {
  // CHECK: kda.intra_diag %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} cu_seqlens %{{[a-z0-9_]+}} {chunk_size = 32 : i64, safe_gate, scale = 1.000000e+00 : f32} : (tensor<1x?x2x128xf16>, tensor<1x?x2x128xf16>, tensor<1x?x4x128xf32>, tensor<1x?x4xf16>, tensor<?xi64>) -> (tensor<1x?x4x32xf16>, tensor<1x?x4x16xf32>)
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta cu_seqlens %cu
      {chunk_size = 32 : i64, sub_chunk_size = 16 : i64, safe_gate, scale = 1.0 : f32}
      : (tensor<1x?x2x128xf16>, tensor<1x?x2x128xf16>, tensor<1x?x4x128xf32>, tensor<1x?x4xf16>, tensor<?xi64>)
      -> (tensor<1x?x4x32xf16>, tensor<1x?x4x16xf32>)
  return %Aqk, %Akkd : tensor<1x?x4x32xf16>, tensor<1x?x4x16xf32>
}

//===----------------------------------------------------------------------===//
// kda.inter_solve
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @inter_solve_default
func.func @inter_solve_default(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>,
    %G: tensor<?x?x8x64xf32>, %beta: tensor<?x?x8xf32>, %Aqk: tensor<?x?x8x64xbf16>,
    %Akkd: tensor<?x?x8x16xf32>) -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>) {
  // CHECK: %{{.*}}, %{{.*}} = kda.inter_solve %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {scale = 1.250000e-01 : f32} : (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x8x64xf32>, tensor<?x?x8xf32>, tensor<?x?x8x64xbf16>, tensor<?x?x8x16xf32>) -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>)
  %Aqk2, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd {scale = 0.125 : f32}
      : (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x8x64xf32>, tensor<?x?x8xf32>,
         tensor<?x?x8x64xbf16>, tensor<?x?x8x16xf32>)
      -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>)
  return %Aqk2, %M : tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>
}

// CHECK-LABEL: func.func @inter_solve_varlen_all_attrs
func.func @inter_solve_varlen_all_attrs(%q: tensor<1x?x4x64xf32>, %k: tensor<1x?x4x64xf32>,
    %G: tensor<1x?x4x64xf32>, %beta: tensor<1x?x4xf32>, %Aqk: tensor<1x?x4x32xf32>,
    %Akkd: tensor<1x?x4x16xf32>, %cu: tensor<5xi64>) -> (tensor<1x?x4x32xf32>, tensor<1x?x4x32xf32>) {
  // CHECK: kda.inter_solve %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} cu_seqlens %{{[a-z0-9_]+}} {chunk_size = 32 : i64, precision = #kda<precision ieee>, safe_gate, scale = 1.000000e-01 : f32}
  %Aqk2, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd cu_seqlens %cu
      {chunk_size = 32 : i64, precision = #kda<precision ieee>, safe_gate, scale = 0.1 : f32}
      : (tensor<1x?x4x64xf32>, tensor<1x?x4x64xf32>, tensor<1x?x4x64xf32>, tensor<1x?x4xf32>,
         tensor<1x?x4x32xf32>, tensor<1x?x4x16xf32>, tensor<5xi64>)
      -> (tensor<1x?x4x32xf32>, tensor<1x?x4x32xf32>)
  return %Aqk2, %M : tensor<1x?x4x32xf32>, tensor<1x?x4x32xf32>
}

// CHECK-LABEL: func.func @inter_solve_tf32x3
func.func @inter_solve_tf32x3(%q: tensor<2x64x1x16xbf16>, %G: tensor<2x64x1x16xf32>,
    %beta: tensor<2x64x1xf32>, %Aqk: tensor<2x64x1x64xbf16>, %Akkd: tensor<2x64x1x16xf32>)
    -> tensor<2x64x1x64xbf16> {
  // CHECK: kda.inter_solve {{.*}} {precision = #kda<precision tf32x3>, scale = 2.500000e-01 : f32}
  %Aqk2, %M = kda.inter_solve %q, %q, %G, %beta, %Aqk, %Akkd
      {precision = #kda<precision tf32x3>, scale = 0.25 : f32}
      : (tensor<2x64x1x16xbf16>, tensor<2x64x1x16xbf16>, tensor<2x64x1x16xf32>, tensor<2x64x1xf32>,
         tensor<2x64x1x64xbf16>, tensor<2x64x1x16xf32>)
      -> (tensor<2x64x1x64xbf16>, tensor<2x64x1x64xbf16>)
  return %M : tensor<2x64x1x64xbf16>
}

// CHECK-LABEL: func.func @inter_solve_tf32_elided
func.func @inter_solve_tf32_elided(%q: tensor<2x64x1x16xbf16>, %G: tensor<2x64x1x16xf32>,
    %beta: tensor<2x64x1xf32>, %Aqk: tensor<2x64x1x64xbf16>, %Akkd: tensor<2x64x1x16xf32>)
    -> tensor<2x64x1x64xbf16> {
  // CHECK: kda.inter_solve {{.*}} {scale = 2.500000e-01 : f32} :
  %Aqk2, %M = kda.inter_solve %q, %q, %G, %beta, %Aqk, %Akkd
      {precision = #kda<precision tf32>, scale = 0.25 : f32}
      : (tensor<2x64x1x16xbf16>, tensor<2x64x1x16xbf16>, tensor<2x64x1x16xf32>, tensor<2x64x1xf32>,
         tensor<2x64x1x64xbf16>, tensor<2x64x1x16xf32>)
      -> (tensor<2x64x1x64xbf16>, tensor<2x64x1x64xbf16>)
  return %M : tensor<2x64x1x64xbf16>
}

//===----------------------------------------------------------------------===//
// kda.wy_recompute
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @wy_recompute_default
func.func @wy_recompute_default(%k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x8x128xbf16>,
    %G: tensor<?x?x8x64xf32>, %beta: tensor<?x?x8xf32>, %M: tensor<?x?x8x64xbf16>)
    -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x64xbf16>) {
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}} = kda.wy_recompute %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<?x?x4x64xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x64xf32>, tensor<?x?x8xf32>, tensor<?x?x8x64xbf16>) -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x64xbf16>)
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<?x?x4x64xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x64xf32>, tensor<?x?x8xf32>,
         tensor<?x?x8x64xbf16>)
      -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x64xbf16>)
  return %w, %u, %kg : tensor<?x?x8x64xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x64xbf16>
}

// CHECK-LABEL: func.func @wy_recompute_varlen_mixed_dtypes
func.func @wy_recompute_varlen_mixed_dtypes(%k: tensor<1x?x2x100xf16>, %v: tensor<1x?x2x60xf32>,
    %G: tensor<1x?x2x100xf32>, %beta: tensor<1x?x2xbf16>, %M: tensor<1x?x2x32xf16>,
    %cu: tensor<?xi64>) -> tensor<1x?x2x60xf32> {
  // CHECK: kda.wy_recompute %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} cu_seqlens %{{[a-z0-9_]+}} {chunk_size = 32 : i64} : (tensor<1x?x2x100xf16>, tensor<1x?x2x60xf32>, tensor<1x?x2x100xf32>, tensor<1x?x2xbf16>, tensor<1x?x2x32xf16>, tensor<?xi64>) -> (tensor<1x?x2x100xf16>, tensor<1x?x2x60xf32>, tensor<1x?x2x100xf16>)
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M cu_seqlens %cu {chunk_size = 32 : i64}
      : (tensor<1x?x2x100xf16>, tensor<1x?x2x60xf32>, tensor<1x?x2x100xf32>, tensor<1x?x2xbf16>,
         tensor<1x?x2x32xf16>, tensor<?xi64>)
      -> (tensor<1x?x2x100xf16>, tensor<1x?x2x60xf32>, tensor<1x?x2x100xf16>)
  return %u : tensor<1x?x2x60xf32>
}

//===----------------------------------------------------------------------===//
// kda.state_scan_output
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @state_scan_output_default
func.func @state_scan_output_default(%kg: tensor<?x?x8x64xbf16>, %w: tensor<?x?x8x64xbf16>,
    %u: tensor<?x?x8x128xbf16>, %G: tensor<?x?x8x64xf32>, %q: tensor<?x?x4x64xbf16>,
    %Aqk: tensor<?x?x8x64xbf16>) -> tensor<?x?x8x128xbf16> {
  // CHECK: %{{.*}} = kda.state_scan_output %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {scale = 1.250000e-01 : f32} : (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x64xf32>, tensor<?x?x4x64xbf16>, tensor<?x?x8x64xbf16>) -> tensor<?x?x8x128xbf16>
  %o = kda.state_scan_output %kg, %w, %u, %G, %q, %Aqk {scale = 0.125 : f32}
      : (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>, tensor<?x?x8x128xbf16>,
         tensor<?x?x8x64xf32>, tensor<?x?x4x64xbf16>, tensor<?x?x8x64xbf16>)
      -> tensor<?x?x8x128xbf16>
  return %o : tensor<?x?x8x128xbf16>
}

// CHECK-LABEL: func.func @state_scan_output_states_varlen
func.func @state_scan_output_states_varlen(%kg: tensor<1x?x4x100xf16>, %w: tensor<1x?x4x100xf16>,
    %u: tensor<1x?x4x60xf16>, %G: tensor<1x?x4x100xf32>, %q: tensor<1x?x2x100xf16>,
    %Aqk: tensor<1x?x4x32xf16>, %h0: tensor<?x4x60x100xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x4x60xf16>, tensor<?x4x60x100xf32>) {
  // CHECK: %{{.*}}, %{{.*}} = kda.state_scan_output %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} initial_state %{{[a-z0-9_]+}} cu_seqlens %{{[a-z0-9_]+}} {chunk_size = 32 : i64, scale = 1.000000e-01 : f32, state_layout = #kda<state_layout vk>}
  %o, %ht = kda.state_scan_output %kg, %w, %u, %G, %q, %Aqk initial_state %h0 cu_seqlens %cu
      {chunk_size = 32 : i64, scale = 0.1 : f32, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x4x100xf16>, tensor<1x?x4x100xf16>, tensor<1x?x4x60xf16>,
         tensor<1x?x4x100xf32>, tensor<1x?x2x100xf16>, tensor<1x?x4x32xf16>,
         tensor<?x4x60x100xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x60xf16>, tensor<?x4x60x100xf32>)
  return %o, %ht : tensor<1x?x4x60xf16>, tensor<?x4x60x100xf32>
}

//===----------------------------------------------------------------------===//
// kda.decay_apply and kda.chunk_recurrence
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @decay_apply_varlen
func.func @decay_apply_varlen(%q: tensor<1x?x2x100xf16>, %k: tensor<1x?x2x100xf16>,
    %G: tensor<1x?x4x100xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x4x100xf16>, tensor<1x?x4x100xf16>, tensor<1x?x4x100xf16>, tensor<1x?x4x100xf32>) {
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = kda.decay_apply %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} cu_seqlens %{{[a-z0-9_]+}} {chunk_size = 32 : i64, scale = 1.000000e-01 : f32}
  %qg, %kd, %kg, %dl = kda.decay_apply %q, %k, %G cu_seqlens %cu {chunk_size = 32 : i64, scale = 0.1 : f32}
      : (tensor<1x?x2x100xf16>, tensor<1x?x2x100xf16>, tensor<1x?x4x100xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x100xf16>, tensor<1x?x4x100xf16>, tensor<1x?x4x100xf16>, tensor<1x?x4x100xf32>)
  return %qg, %kd, %kg, %dl : tensor<1x?x4x100xf16>, tensor<1x?x4x100xf16>, tensor<1x?x4x100xf16>, tensor<1x?x4x100xf32>
}

// CHECK-LABEL: func.func @chunk_recurrence_default
func.func @chunk_recurrence_default(%qg: tensor<?x?x8x64xbf16>, %kd: tensor<?x?x8x64xbf16>,
    %kg: tensor<?x?x8x64xbf16>, %v: tensor<?x?x8x128xbf16>, %beta: tensor<?x?x8xf32>,
    %M: tensor<?x?x8x64xbf16>, %Aqk: tensor<?x?x8x64xbf16>, %dl: tensor<?x?x8x64xf32>)
    -> tensor<?x?x8x128xbf16> {
  // CHECK: %{{.*}} = kda.chunk_recurrence %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (
  %o = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl
      : (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>,
         tensor<?x?x8x128xbf16>, tensor<?x?x8xf32>, tensor<?x?x8x64xbf16>,
         tensor<?x?x8x64xbf16>, tensor<?x?x8x64xf32>)
      -> tensor<?x?x8x128xbf16>
  return %o : tensor<?x?x8x128xbf16>
}

// CHECK-LABEL: func.func @chunk_recurrence_states_varlen
func.func @chunk_recurrence_states_varlen(%qg: tensor<1x?x4x100xf16>, %kd: tensor<1x?x4x100xf16>,
    %kg: tensor<1x?x4x100xf16>, %v: tensor<1x?x4x60xf16>, %beta: tensor<1x?x4xf16>,
    %M: tensor<1x?x4x32xf16>, %Aqk: tensor<1x?x4x32xf16>, %dl: tensor<1x?x4x100xf32>,
    %h0: tensor<?x4x60x100xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x4x60xf16>, tensor<?x4x60x100xf32>) {
  // CHECK: %{{.*}}, %{{.*}} = kda.chunk_recurrence {{.*}} initial_state %{{[a-z0-9_]+}} cu_seqlens %{{[a-z0-9_]+}} {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
  %o, %ht = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl initial_state %h0 cu_seqlens %cu
      {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x4x100xf16>, tensor<1x?x4x100xf16>, tensor<1x?x4x100xf16>,
         tensor<1x?x4x60xf16>, tensor<1x?x4xf16>, tensor<1x?x4x32xf16>,
         tensor<1x?x4x32xf16>, tensor<1x?x4x100xf32>, tensor<?x4x60x100xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x60xf16>, tensor<?x4x60x100xf32>)
  return %o, %ht : tensor<1x?x4x60xf16>, tensor<?x4x60x100xf32>
}

//===----------------------------------------------------------------------===//
// kda.state_scan
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @state_scan_default
func.func @state_scan_default(%kg: tensor<?x?x8x64xbf16>, %w: tensor<?x?x8x64xbf16>,
    %u: tensor<?x?x8x128xbf16>, %G: tensor<?x?x8x64xf32>)
    -> (tensor<?x?x8x64x128xbf16>, tensor<?x?x8x128xbf16>) {
  // CHECK: %{{.*}}, %{{.*}} = kda.state_scan %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x64xf32>) -> (tensor<?x?x8x64x128xbf16>, tensor<?x?x8x128xbf16>)
  %h, %vn = kda.state_scan %kg, %w, %u, %G
      : (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x64xf32>)
      -> (tensor<?x?x8x64x128xbf16>, tensor<?x?x8x128xbf16>)
  return %h, %vn : tensor<?x?x8x64x128xbf16>, tensor<?x?x8x128xbf16>
}

// CHECK-LABEL: func.func @state_scan_initial_and_final_state
func.func @state_scan_initial_and_final_state(%kg: tensor<2x200x8x64xbf16>, %w: tensor<2x200x8x64xbf16>,
    %u: tensor<2x200x8x128xbf16>, %G: tensor<2x200x8x64xf32>, %h0: tensor<2x8x64x128xf32>)
    -> tensor<2x8x64x128xf32> {
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}} = kda.state_scan %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} initial_state %{{[a-z0-9_]+}} : (tensor<2x200x8x64xbf16>, tensor<2x200x8x64xbf16>, tensor<2x200x8x128xbf16>, tensor<2x200x8x64xf32>, tensor<2x8x64x128xf32>) -> (tensor<2x4x8x64x128xbf16>, tensor<2x200x8x128xbf16>, tensor<2x8x64x128xf32>)
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G initial_state %h0
      : (tensor<2x200x8x64xbf16>, tensor<2x200x8x64xbf16>, tensor<2x200x8x128xbf16>,
         tensor<2x200x8x64xf32>, tensor<2x8x64x128xf32>)
      -> (tensor<2x4x8x64x128xbf16>, tensor<2x200x8x128xbf16>, tensor<2x8x64x128xf32>)
  return %ht : tensor<2x8x64x128xf32>
}

// CHECK-LABEL: func.func @state_scan_final_state_only
func.func @state_scan_final_state_only(%kg: tensor<2x?x8x64xbf16>, %w: tensor<2x?x8x64xbf16>,
    %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>) -> tensor<2x8x64x128xf32> {
  // CHECK: kda.state_scan %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : ({{.*}}) -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>, tensor<2x8x64x128xf32>)
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>, tensor<2x8x64x128xf32>)
  return %ht : tensor<2x8x64x128xf32>
}

// CHECK-LABEL: func.func @state_scan_varlen_vk
func.func @state_scan_varlen_vk(%kg: tensor<1x?x4x64xf16>, %w: tensor<1x?x4x64xf16>,
    %u: tensor<1x?x4x32xf16>, %G: tensor<1x?x4x64xf32>, %h0: tensor<3x4x32x64xf32>,
    %cu: tensor<4xi64>) -> tensor<3x4x32x64xf32> {
  // CHECK: kda.state_scan %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} initial_state %{{[a-z0-9_]+}} cu_seqlens %{{[a-z0-9_]+}} {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>} : (tensor<1x?x4x64xf16>, tensor<1x?x4x64xf16>, tensor<1x?x4x32xf16>, tensor<1x?x4x64xf32>, tensor<3x4x32x64xf32>, tensor<4xi64>) -> (tensor<1x?x4x32x64xf16>, tensor<1x?x4x32xf16>, tensor<3x4x32x64xf32>)
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G initial_state %h0 cu_seqlens %cu
      {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x4x64xf16>, tensor<1x?x4x64xf16>, tensor<1x?x4x32xf16>, tensor<1x?x4x64xf32>,
         tensor<3x4x32x64xf32>, tensor<4xi64>)
      -> (tensor<1x?x4x32x64xf16>, tensor<1x?x4x32xf16>, tensor<3x4x32x64xf32>)
  return %ht : tensor<3x4x32x64xf32>
}

// CHECK-LABEL: func.func @state_scan_kv_elided
func.func @state_scan_kv_elided(%kg: tensor<?x?x8x64xbf16>, %u: tensor<?x?x8x128xbf16>,
    %G: tensor<?x?x8x64xf32>) -> tensor<?x?x8x128xbf16> {
  // CHECK: kda.state_scan {{.*}} : (tensor<?x?x8x64xbf16>,
  %h, %vn = kda.state_scan %kg, %kg, %u, %G {state_layout = #kda<state_layout kv>}
      : (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x64xf32>)
      -> (tensor<?x?x8x64x128xbf16>, tensor<?x?x8x128xbf16>)
  return %vn : tensor<?x?x8x128xbf16>
}

//===----------------------------------------------------------------------===//
// kda.output
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @output_default
func.func @output_default(%q: tensor<?x?x4x64xbf16>, %G: tensor<?x?x8x64xf32>,
    %Aqk: tensor<?x?x8x64xbf16>, %h: tensor<?x?x8x64x128xbf16>, %vn: tensor<?x?x8x128xbf16>)
    -> tensor<?x?x8x128xbf16> {
  // CHECK: %{{.*}} = kda.output %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {scale = 1.250000e-01 : f32} : (tensor<?x?x4x64xbf16>, tensor<?x?x8x64xf32>, tensor<?x?x8x64xbf16>, tensor<?x?x8x64x128xbf16>, tensor<?x?x8x128xbf16>) -> tensor<?x?x8x128xbf16>
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<?x?x4x64xbf16>, tensor<?x?x8x64xf32>, tensor<?x?x8x64xbf16>,
         tensor<?x?x8x64x128xbf16>, tensor<?x?x8x128xbf16>) -> tensor<?x?x8x128xbf16>
  return %o : tensor<?x?x8x128xbf16>
}

// CHECK-LABEL: func.func @output_varlen_vk
func.func @output_varlen_vk(%q: tensor<1x?x4x64xf16>, %G: tensor<1x?x4x64xf32>,
    %Aqk: tensor<1x?x4x32xf16>, %h: tensor<1x?x4x16x64xf16>, %vn: tensor<1x?x4x16xf32>,
    %cu: tensor<?xi64>) -> tensor<1x?x4x16xf32> {
  // CHECK: kda.output %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} cu_seqlens %{{[a-z0-9_]+}} {chunk_size = 32 : i64, scale = 1.000000e+00 : f32, state_layout = #kda<state_layout vk>}
  %o = kda.output %q, %G, %Aqk, %h, %vn cu_seqlens %cu
      {chunk_size = 32 : i64, scale = 1.0 : f32, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x4x64xf16>, tensor<1x?x4x64xf32>, tensor<1x?x4x32xf16>,
         tensor<1x?x4x16x64xf16>, tensor<1x?x4x16xf32>, tensor<?xi64>) -> tensor<1x?x4x16xf32>
  return %o : tensor<1x?x4x16xf32>
}

// CHECK-LABEL: func.func @output_static_chunks
func.func @output_static_chunks(%q: tensor<2x65x1x64xbf16>, %G: tensor<2x65x1x64xf32>,
    %Aqk: tensor<2x65x1x64xbf16>, %h: tensor<2x2x1x64x64xbf16>, %vn: tensor<2x65x1x64xbf16>)
    -> tensor<2x65x1x64xbf16> {
  // CHECK: kda.output {{.*}} -> tensor<2x65x1x64xbf16>
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x65x1x64xbf16>, tensor<2x65x1x64xf32>, tensor<2x65x1x64xbf16>,
         tensor<2x2x1x64x64xbf16>, tensor<2x65x1x64xbf16>) -> tensor<2x65x1x64xbf16>
  return %o : tensor<2x65x1x64xbf16>
}

//===----------------------------------------------------------------------===//
// kda.chunk_fwd
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @chunk_fwd_minimal
func.func @chunk_fwd_minimal(%q: tensor<2x?x4x128xbf16>, %k: tensor<2x?x4x128xbf16>,
    %v: tensor<2x?x8x128xbf16>, %g: tensor<2x?x8x128xf32>, %beta: tensor<2x?x8xf32>)
    -> tensor<2x?x8x128xbf16> {
  // CHECK: %{{.*}} = kda.chunk_fwd %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<2x?x4x128xbf16>, tensor<2x?x4x128xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x128xf32>, tensor<2x?x8xf32>) -> tensor<2x?x8x128xbf16>
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<2x?x4x128xbf16>, tensor<2x?x4x128xbf16>, tensor<2x?x8x128xbf16>,
         tensor<2x?x8x128xf32>, tensor<2x?x8xf32>) -> tensor<2x?x8x128xbf16>
  return %o : tensor<2x?x8x128xbf16>
}

// CHECK-LABEL: func.func @chunk_fwd_defaults_elided
func.func @chunk_fwd_defaults_elided(%q: tensor<2x?x4x128xbf16>, %v: tensor<2x?x8x128xbf16>,
    %g: tensor<2x?x8x128xf32>, %beta: tensor<2x?x8xf32>) -> tensor<2x?x8x128xbf16> {
  // CHECK: kda.chunk_fwd %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta
      {chunk_size = 64 : i64, sub_chunk_size = 16 : i64, gate_mode = #kda<gate_mode precomputed>,
       precision = #kda<precision tf32>, state_layout = #kda<state_layout kv>}
      : (tensor<2x?x4x128xbf16>, tensor<2x?x4x128xbf16>, tensor<2x?x8x128xbf16>,
         tensor<2x?x8x128xf32>, tensor<2x?x8xf32>) -> tensor<2x?x8x128xbf16>
  return %o : tensor<2x?x8x128xbf16>
}

// CHECK-LABEL: func.func @chunk_fwd_final_state_only
func.func @chunk_fwd_final_state_only(%q: tensor<3x1024x4x100xf16>, %v: tensor<3x1024x4x100xf16>,
    %g: tensor<3x1024x4x100xf32>, %beta: tensor<3x1024x4xf16>) -> tensor<3x4x100x100xf32> {
  // CHECK: kda.chunk_fwd %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {scale = 1.000000e-01 : f32} : (tensor<3x1024x4x100xf16>, tensor<3x1024x4x100xf16>, tensor<3x1024x4x100xf16>, tensor<3x1024x4x100xf32>, tensor<3x1024x4xf16>) -> (tensor<3x1024x4x100xf16>, tensor<3x4x100x100xf32>)
  %o, %ht = kda.chunk_fwd %q, %q, %v, %g, %beta {scale = 0.1 : f32}
      : (tensor<3x1024x4x100xf16>, tensor<3x1024x4x100xf16>, tensor<3x1024x4x100xf16>,
         tensor<3x1024x4x100xf32>, tensor<3x1024x4xf16>)
      -> (tensor<3x1024x4x100xf16>, tensor<3x4x100x100xf32>)
  return %ht : tensor<3x4x100x100xf32>
}

// CHECK-LABEL: func.func @chunk_fwd_softplus_gate
func.func @chunk_fwd_softplus_gate(%q: tensor<2x?x2x64xbf16>, %v: tensor<2x?x8x64xbf16>,
    %g: tensor<2x?x8x64xbf16>, %beta: tensor<2x?x8xbf16>, %a: tensor<8xf32>,
    %dt: tensor<8x64xf32>, %h0: tensor<2x8x64x64xf32>) -> tensor<2x?x8x64xbf16> {
  // CHECK: kda.chunk_fwd %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} a_log %{{[a-z0-9_]+}} dt_bias %{{[a-z0-9_]+}} initial_state %{{[a-z0-9_]+}} {allow_neg_eigval, chunk_size = 32 : i64, gate_mode = #kda<gate_mode softplus>, precision = #kda<precision ieee>, use_beta_sigmoid, use_qk_l2norm} : (tensor<2x?x2x64xbf16>, tensor<2x?x2x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8xbf16>, tensor<8xf32>, tensor<8x64xf32>, tensor<2x8x64x64xf32>) -> tensor<2x?x8x64xbf16>
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta a_log %a dt_bias %dt initial_state %h0
      {allow_neg_eigval, chunk_size = 32 : i64, gate_mode = #kda<gate_mode softplus>,
       precision = #kda<precision ieee>, use_beta_sigmoid, use_qk_l2norm}
      : (tensor<2x?x2x64xbf16>, tensor<2x?x2x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>,
         tensor<2x?x8xbf16>, tensor<8xf32>, tensor<8x64xf32>, tensor<2x8x64x64xf32>)
      -> tensor<2x?x8x64xbf16>
  return %o : tensor<2x?x8x64xbf16>
}

// CHECK-LABEL: func.func @chunk_fwd_lower_bound_varlen_vk
func.func @chunk_fwd_lower_bound_varlen_vk(%q: tensor<1x?x4x128xbf16>, %k: tensor<1x?x4x128xbf16>,
    %v: tensor<1x?x4x128xbf16>, %g: tensor<1x?x4x128xbf16>, %beta: tensor<1x?x4xbf16>,
    %a: tensor<4xf32>, %dt: tensor<512xf32>, %h0: tensor<?x4x128x128xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x4x128xbf16>, tensor<?x4x128x128xf32>) {
  // CHECK: %{{.*}}, %{{.*}} = kda.chunk_fwd %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} a_log %{{[a-z0-9_]+}} dt_bias %{{[a-z0-9_]+}} initial_state %{{[a-z0-9_]+}} cu_seqlens %{{[a-z0-9_]+}} {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.000000e+00 : f32, safe_gate, state_layout = #kda<state_layout vk>, use_beta_sigmoid, use_qk_l2norm} : (tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4xbf16>, tensor<4xf32>, tensor<512xf32>, tensor<?x4x128x128xf32>, tensor<?xi64>) -> (tensor<1x?x4x128xbf16>, tensor<?x4x128x128xf32>)
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %a dt_bias %dt initial_state %h0 cu_seqlens %cu
      {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32, safe_gate,
       use_qk_l2norm, use_beta_sigmoid, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>,
         tensor<1x?x4x128xbf16>, tensor<1x?x4xbf16>, tensor<4xf32>, tensor<512xf32>,
         tensor<?x4x128x128xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x128xbf16>, tensor<?x4x128x128xf32>)
  return %o, %ht : tensor<1x?x4x128xbf16>, tensor<?x4x128x128xf32>
}

// CHECK-LABEL: func.func @chunk_fwd_lower_bound_without_a_log
func.func @chunk_fwd_lower_bound_without_a_log(%q: tensor<1x?x4x64xf32>, %v: tensor<1x?x4x32xf32>,
    %g: tensor<1x?x4x64xf32>, %beta: tensor<1x?x4xf32>, %cu: tensor<3xi64>)
    -> (tensor<1x?x4x32xf32>, tensor<2x4x64x32xf32>) {
  // CHECK: kda.chunk_fwd %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} cu_seqlens %{{[a-z0-9_]+}} {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -1.000000e+01 : f32} : (tensor<1x?x4x64xf32>, tensor<1x?x4x64xf32>, tensor<1x?x4x32xf32>, tensor<1x?x4x64xf32>, tensor<1x?x4xf32>, tensor<3xi64>) -> (tensor<1x?x4x32xf32>, tensor<2x4x64x32xf32>)
  %o, %ht = kda.chunk_fwd %q, %q, %v, %g, %beta cu_seqlens %cu
      {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -10.0 : f32}
      : (tensor<1x?x4x64xf32>, tensor<1x?x4x64xf32>, tensor<1x?x4x32xf32>, tensor<1x?x4x64xf32>,
         tensor<1x?x4xf32>, tensor<3xi64>)
      -> (tensor<1x?x4x32xf32>, tensor<2x4x64x32xf32>)
  return %o, %ht : tensor<1x?x4x32xf32>, tensor<2x4x64x32xf32>
}

// CHECK-LABEL: func.func @chunk_fwd_safe_gate_precomputed
func.func @chunk_fwd_safe_gate_precomputed(%q: tensor<1x63x1x64xf16>, %v: tensor<1x63x1x64xf16>,
    %g: tensor<1x63x1x64xf32>, %beta: tensor<1x63x1xf32>) -> tensor<1x63x1x64xf16> {
  // CHECK: kda.chunk_fwd {{.*}} {safe_gate, scale = 1.000000e+00 : f32} :
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta {safe_gate, scale = 1.0 : f32}
      : (tensor<1x63x1x64xf16>, tensor<1x63x1x64xf16>, tensor<1x63x1x64xf16>,
         tensor<1x63x1x64xf32>, tensor<1x63x1xf32>) -> tensor<1x63x1x64xf16>
  return %o : tensor<1x63x1x64xf16>
}

//===----------------------------------------------------------------------===//
// Dynamic head counts: H and HV may be dynamic (K and V may not).
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @dynamic_heads
func.func @dynamic_heads(%x: tensor<?x?x?x64xf32>, %b: tensor<?x?x?xbf16>,
                         %g: tensor<?x?x?x64xf32>)
    -> (tensor<?x?x?x64xf32>, tensor<?x?x?xf32>, tensor<?x?x?x64xf32>) {
  // CHECK: kda.l2norm %{{.*}} : (tensor<?x?x?x64xf32>) -> tensor<?x?x?x64xf32>
  %y = kda.l2norm %x : (tensor<?x?x?x64xf32>) -> tensor<?x?x?x64xf32>
  // CHECK: kda.beta_activation %{{.*}} : (tensor<?x?x?xbf16>) -> tensor<?x?x?xf32>
  %beta = kda.beta_activation %b : (tensor<?x?x?xbf16>) -> tensor<?x?x?xf32>
  // CHECK: kda.gate_cumsum %{{.*}} : (tensor<?x?x?x64xf32>) -> tensor<?x?x?x64xf32>
  %G = kda.gate_cumsum %g : (tensor<?x?x?x64xf32>) -> tensor<?x?x?x64xf32>
  return %y, %beta, %G : tensor<?x?x?x64xf32>, tensor<?x?x?xf32>, tensor<?x?x?x64xf32>
}

// CHECK-LABEL: func.func @chunk_fwd_dynamic_heads
func.func @chunk_fwd_dynamic_heads(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>,
                                   %v: tensor<?x?x?x64xbf16>, %g: tensor<?x?x?x64xf32>,
                                   %beta: tensor<?x?x?xf32>, %h0: tensor<?x?x64x64xf32>)
    -> (tensor<?x?x?x64xbf16>, tensor<?x?x64x64xf32>) {
  // CHECK: kda.chunk_fwd {{.*}} initial_state
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0
      : (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
         tensor<?x?x?x64xf32>, tensor<?x?x?xf32>, tensor<?x?x64x64xf32>)
      -> (tensor<?x?x?x64xbf16>, tensor<?x?x64x64xf32>)
  return %o, %ht : tensor<?x?x?x64xbf16>, tensor<?x?x64x64xf32>
}
