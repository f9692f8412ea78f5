// RUN: kda-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the kda ops. The few cases marked "ODS"
// exercise type constraints checked before the verifiers run.

//===----------------------------------------------------------------------===//
// kda.l2norm
//===----------------------------------------------------------------------===//

func.func @l2norm_x_rank(%x: tensor<?x4x64xf32>) {
  // expected-error @+1 {{operand 'x' must have rank 4 [B, T, H, K], got rank 3}}
  %y = kda.l2norm %x : (tensor<?x4x64xf32>) -> tensor<?x4x64xf32>
  return
}

// -----

func.func @l2norm_x_dynamic_k(%x: tensor<?x?x4x?xf32>) {
  // expected-error @+1 {{operand 'x' must have a static K (dimension 3): kernels are specialized on it}}
  %y = kda.l2norm %x : (tensor<?x?x4x?xf32>) -> tensor<?x?x4x?xf32>
  return
}

// -----

func.func @l2norm_k_too_large(%x: tensor<?x?x4x512xf32>) {
  // expected-error @+1 {{operand 'x' has K = 512, but K must be in [1, 256]}}
  %y = kda.l2norm %x : (tensor<?x?x4x512xf32>) -> tensor<?x?x4x512xf32>
  return
}

// -----

func.func @l2norm_k_zero(%x: tensor<?x?x4x0xf32>) {
  // expected-error @+1 {{operand 'x' has K = 0, but K must be in [1, 256]}}
  %y = kda.l2norm %x : (tensor<?x?x4x0xf32>) -> tensor<?x?x4x0xf32>
  return
}

// -----

func.func @l2norm_zero_heads(%x: tensor<?x?x0x64xf32>) {
  // expected-error @+1 {{operand 'x' has H = 0, but at least one head is required}}
  %y = kda.l2norm %x : (tensor<?x?x0x64xf32>) -> tensor<?x?x0x64xf32>
  return
}

// -----

func.func @l2norm_result_rank(%x: tensor<?x?x4x64xf32>) {
  // expected-error @+1 {{result 'result' must have rank 4 [B, T, H, K], got rank 3}}
  %y = kda.l2norm %x : (tensor<?x?x4x64xf32>) -> tensor<?x?x256xf32>
  return
}

// -----

func.func @l2norm_result_dynamic_k(%x: tensor<?x?x4x64xf32>) {
  // expected-error @+1 {{result 'result' must have a static K (dimension 3): kernels are specialized on it}}
  %y = kda.l2norm %x : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x?xf32>
  return
}

// -----

func.func @l2norm_result_batch(%x: tensor<2x?x4x64xf32>) {
  // expected-error @+1 {{result 'result' has B = 3 (dimension 0), but B of operand 'x' is 2}}
  %y = kda.l2norm %x : (tensor<2x?x4x64xf32>) -> tensor<3x?x4x64xf32>
  return
}

// -----

func.func @l2norm_result_dtype(%x: tensor<?x?x4x64xbf16>) {
  // expected-error @+1 {{result 'result' has element type 'f32', but the element type of operand 'x' is 'bf16'}}
  %y = kda.l2norm %x : (tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xf32>
  return
}

// -----

func.func @l2norm_eps_zero(%x: tensor<?x?x4x64xbf16>) {
  // expected-error @+1 {{attribute 'eps' must be finite and positive, got 0}}
  %y = kda.l2norm %x {eps = 0.0 : f32} : (tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16>
  return
}

// -----

func.func @l2norm_eps_inf(%x: tensor<?x?x4x64xbf16>) {
  // expected-error @+1 {{attribute 'eps' must be finite and positive, got +Inf}}
  %y = kda.l2norm %x {eps = 0x7F800000 : f32} : (tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16>
  return
}

// -----

func.func @l2norm_x_i32(%x: tensor<?x?x4x64xi32>) {
  // ODS: feature tensors are f16, bf16 or f32.
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float values}}
  %y = kda.l2norm %x : (tensor<?x?x4x64xi32>) -> tensor<?x?x4x64xi32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// kda.beta_activation
//===----------------------------------------------------------------------===//

func.func @beta_activation_rank(%b: tensor<?x?x8x1xbf16>) {
  // expected-error @+1 {{operand 'beta_raw' must have rank 3 [B, T, HV], got rank 4}}
  %beta = kda.beta_activation %b : (tensor<?x?x8x1xbf16>) -> tensor<?x?x8x1xf32>
  return
}

// -----

func.func @beta_activation_zero_heads(%b: tensor<?x?x0xbf16>) {
  // expected-error @+1 {{operand 'beta_raw' has HV = 0, but at least one head is required}}
  %beta = kda.beta_activation %b : (tensor<?x?x0xbf16>) -> tensor<?x?x0xf32>
  return
}

// -----

func.func @beta_activation_result_heads(%b: tensor<?x?x8xbf16>) {
  // expected-error @+1 {{result 'result' has HV = 4 (dimension 2), but HV of operand 'beta_raw' is 8}}
  %beta = kda.beta_activation %b : (tensor<?x?x8xbf16>) -> tensor<?x?x4xf32>
  return
}

// -----

func.func @beta_activation_result_tokens(%b: tensor<1x96x8xbf16>) {
  // expected-error @+1 {{result 'result' has T = 95 (dimension 1), but T of operand 'beta_raw' is 96}}
  %beta = kda.beta_activation %b {allow_neg_eigval} : (tensor<1x96x8xbf16>) -> tensor<1x95x8xf32>
  return
}

// -----

func.func @beta_activation_result_bf16(%b: tensor<?x?x8xbf16>) {
  // ODS: the activated beta is fp32.
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit float values}}
  %beta = kda.beta_activation %b : (tensor<?x?x8xbf16>) -> tensor<?x?x8xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// kda.gate_cumsum
//===----------------------------------------------------------------------===//

func.func @gate_cumsum_g_rank(%g: tensor<?x4x64xf32>) {
  // expected-error @+1 {{operand 'g' must have rank 4 [B, T, HV, K], got rank 3}}
  %G = kda.gate_cumsum %g : (tensor<?x4x64xf32>) -> tensor<?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_k_too_large(%g: tensor<?x?x4x300xf32>) {
  // expected-error @+1 {{operand 'g' has K = 300, but K must be in [1, 256]}}
  %G = kda.gate_cumsum %g : (tensor<?x?x4x300xf32>) -> tensor<?x?x4x300xf32>
  return
}

// -----

func.func @gate_cumsum_result_shape(%g: tensor<?x?x4x64xbf16>) {
  // expected-error @+1 {{result must have the shape of operand 'g' [B, T, HV, K], got 'tensor<?x?x4x32xf32>'}}
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xbf16>) -> tensor<?x?x4x32xf32>
  return
}

// -----

func.func @gate_cumsum_chunk_size(%g: tensor<?x?x4x64xf32>) {
  // expected-error @+1 {{attribute 'chunk_size' must be 16, 32 or 64, got 48}}
  %G = kda.gate_cumsum %g {chunk_size = 48 : i64} : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_cu_seqlens_rank(%g: tensor<1x?x4x64xf32>, %cu: tensor<2x3xi64>) {
  // expected-error @+1 {{operand 'cu_seqlens' must have rank 1 [N + 1], got rank 2}}
  %G = kda.gate_cumsum %g cu_seqlens %cu : (tensor<1x?x4x64xf32>, tensor<2x3xi64>) -> tensor<1x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_cu_seqlens_too_short(%g: tensor<1x?x4x64xf32>, %cu: tensor<1xi64>) {
  // expected-error @+1 {{operand 'cu_seqlens' must hold at least 2 offsets (one sequence), got 1}}
  %G = kda.gate_cumsum %g cu_seqlens %cu : (tensor<1x?x4x64xf32>, tensor<1xi64>) -> tensor<1x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_varlen_batch(%g: tensor<2x?x4x64xf32>, %cu: tensor<?xi64>) {
  // expected-error @+1 {{varlen inputs (with 'cu_seqlens') must have batch size B = 1, got B = 2}}
  %G = kda.gate_cumsum %g cu_seqlens %cu : (tensor<2x?x4x64xf32>, tensor<?xi64>) -> tensor<2x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_cu_seqlens_i32(%g: tensor<1x?x4x64xf32>, %cu: tensor<?xi32>) {
  // ODS: cu_seqlens is i64.
  // expected-error @+1 {{operand #1 must be ranked tensor of 64-bit signless integer values}}
  %G = kda.gate_cumsum %g cu_seqlens %cu : (tensor<1x?x4x64xf32>, tensor<?xi32>) -> tensor<1x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_a_log_precomputed(%g: tensor<?x?x4x64xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand 'a_log' is only allowed with an in-kernel gate (gate_mode softplus or lower_bound)}}
  %G = kda.gate_cumsum %g a_log %a : (tensor<?x?x4x64xf32>, tensor<4xf32>) -> tensor<?x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_dt_bias_precomputed(%g: tensor<?x?x4x64xf32>, %dt: tensor<4x64xf32>) {
  // expected-error @+1 {{operand 'dt_bias' is only allowed with an in-kernel gate (gate_mode softplus or lower_bound)}}
  %G = kda.gate_cumsum %g dt_bias %dt : (tensor<?x?x4x64xf32>, tensor<4x64xf32>) -> tensor<?x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_softplus_without_a_log(%g: tensor<?x?x4x64xf32>) {
  // expected-error @+1 {{gate_mode softplus requires operand 'a_log'}}
  %G = kda.gate_cumsum %g {gate_mode = #kda<gate_mode softplus>} : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_lower_bound_with_softplus(%g: tensor<?x?x4x64xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{attribute 'lower_bound' requires gate_mode lower_bound}}
  %G = kda.gate_cumsum %g a_log %a {gate_mode = #kda<gate_mode softplus>, lower_bound = -5.0 : f32}
      : (tensor<?x?x4x64xf32>, tensor<4xf32>) -> tensor<?x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_lower_bound_missing(%g: tensor<?x?x4x64xf32>) {
  // expected-error @+1 {{gate_mode lower_bound requires attribute 'lower_bound'}}
  %G = kda.gate_cumsum %g {gate_mode = #kda<gate_mode lower_bound>} : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_lower_bound_positive(%g: tensor<?x?x4x64xf32>) {
  // expected-error @+1 {{attribute 'lower_bound' must be finite and negative, got 2}}
  %G = kda.gate_cumsum %g {gate_mode = #kda<gate_mode lower_bound>, lower_bound = 2.0 : f32}
      : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_lower_bound_neg_inf(%g: tensor<?x?x4x64xf32>) {
  // expected-error @+1 {{attribute 'lower_bound' must be finite and negative, got -Inf}}
  %G = kda.gate_cumsum %g {gate_mode = #kda<gate_mode lower_bound>, lower_bound = 0xFF800000 : f32}
      : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_a_log_rank(%g: tensor<?x?x4x64xf32>, %a: tensor<4x1xf32>) {
  // expected-error @+1 {{operand 'a_log' must have rank 1 [HV], got rank 2}}
  %G = kda.gate_cumsum %g a_log %a {gate_mode = #kda<gate_mode softplus>}
      : (tensor<?x?x4x64xf32>, tensor<4x1xf32>) -> tensor<?x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_a_log_heads(%g: tensor<?x?x4x64xf32>, %a: tensor<8xf32>) {
  // expected-error @+1 {{operand 'a_log' has HV = 8 (dimension 0), but HV of operand 'g' is 4}}
  %G = kda.gate_cumsum %g a_log %a {gate_mode = #kda<gate_mode softplus>}
      : (tensor<?x?x4x64xf32>, tensor<8xf32>) -> tensor<?x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_dt_bias_heads(%g: tensor<?x?x4x64xf32>, %a: tensor<4xf32>, %dt: tensor<2x64xf32>) {
  // expected-error @+1 {{operand 'dt_bias' has HV = 2 (dimension 0), but HV of operand 'g' is 4}}
  %G = kda.gate_cumsum %g a_log %a dt_bias %dt {gate_mode = #kda<gate_mode softplus>}
      : (tensor<?x?x4x64xf32>, tensor<4xf32>, tensor<2x64xf32>) -> tensor<?x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_dt_bias_k(%g: tensor<?x?x4x64xf32>, %dt: tensor<4x32xf32>) {
  // expected-error @+1 {{operand 'dt_bias' has K = 32 (dimension 1), but K of operand 'g' is 64}}
  %G = kda.gate_cumsum %g dt_bias %dt {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32}
      : (tensor<?x?x4x64xf32>, tensor<4x32xf32>) -> tensor<?x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_dt_bias_flat(%g: tensor<?x?x4x64xf32>, %dt: tensor<64xf32>) {
  // expected-error @+1 {{operand 'dt_bias' has HV * K = 64 (dimension 0), but HV * K of operand 'g' is 256}}
  %G = kda.gate_cumsum %g dt_bias %dt {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32}
      : (tensor<?x?x4x64xf32>, tensor<64xf32>) -> tensor<?x?x4x64xf32>
  return
}

// -----

func.func @gate_cumsum_dt_bias_rank(%g: tensor<?x?x4x64xf32>, %dt: tensor<4x8x8xf32>) {
  // expected-error @+1 {{operand 'dt_bias' must have rank 2 [HV, K] or rank 1 [HV * K], got rank 3}}
  %G = kda.gate_cumsum %g dt_bias %dt {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32}
      : (tensor<?x?x4x64xf32>, tensor<4x8x8xf32>) -> tensor<?x?x4x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// kda.intra_diag
//===----------------------------------------------------------------------===//

func.func @intra_diag_chunk_size(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>) {
  // expected-error @+1 {{attribute 'chunk_size' must be 16, 32 or 64, got 8}}
  %Aqk, %Akkd = kda.intra_diag %q, %q, %G, %beta {chunk_size = 8 : i64, scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>)
      -> (tensor<2x?x8x16xbf16>, tensor<2x?x8x16xf32>)
  return
}

// -----

func.func @intra_diag_sub_chunk_size(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>) {
  // expected-error @+1 {{attribute 'sub_chunk_size' must be 16, got 32}}
  %Aqk, %Akkd = kda.intra_diag %q, %q, %G, %beta {scale = 0.125 : f32, sub_chunk_size = 32 : i64}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x32xf32>)
  return
}

// -----

func.func @intra_diag_scale_negative(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>) {
  // expected-error @+1 {{attribute 'scale' must be finite and positive, got -0.125}}
  %Aqk, %Akkd = kda.intra_diag %q, %q, %G, %beta {scale = -0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x16xf32>)
  return
}

// -----

func.func @intra_diag_scale_missing(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>) {
  // ODS: scale is required.
  // expected-error @+1 {{requires attribute 'scale'}}
  %Aqk, %Akkd = kda.intra_diag %q, %q, %G, %beta
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x16xf32>)
  return
}

// -----

func.func @intra_diag_k_shape(%q: tensor<2x?x4x64xbf16>, %k: tensor<2x?x4x32xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>) {
  // expected-error @+1 {{operand 'k' has K = 32 (dimension 3), but K of operand 'q' is 64}}
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x32xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x16xf32>)
  return
}

// -----

func.func @intra_diag_k_dtype(%q: tensor<2x?x4x64xbf16>, %k: tensor<2x?x4x64xf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>) {
  // expected-error @+1 {{operand 'k' has element type 'f16', but the element type of operand 'q' is 'bf16'}}
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x16xf32>)
  return
}

// -----

func.func @intra_diag_head_ratio(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x6x64xf32>, %beta: tensor<2x?x6xf32>) {
  // expected-error @+1 {{HV = 6 (operand 'G') is not a multiple of H = 4 (operand 'q'): each value head must read exactly one q/k head}}
  %Aqk, %Akkd = kda.intra_diag %q, %q, %G, %beta {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x6x64xf32>, tensor<2x?x6xf32>)
      -> (tensor<2x?x6x64xbf16>, tensor<2x?x6x16xf32>)
  return
}

// -----

func.func @intra_diag_gate_k(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x128xf32>, %beta: tensor<2x?x8xf32>) {
  // expected-error @+1 {{operand 'G' has K = 128 (dimension 3), but K of operand 'q' is 64}}
  %Aqk, %Akkd = kda.intra_diag %q, %q, %G, %beta {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x128xf32>, tensor<2x?x8xf32>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x16xf32>)
  return
}

// -----

func.func @intra_diag_gate_bf16(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xbf16>, %beta: tensor<2x?x8xf32>) {
  // ODS: the gate cumsum G is fp32.
  // expected-error @+1 {{operand #2 must be ranked tensor of 32-bit float values}}
  %Aqk, %Akkd = kda.intra_diag %q, %q, %G, %beta {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8xf32>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x16xf32>)
  return
}

// -----

func.func @intra_diag_beta_tokens(%q: tensor<2x128x4x64xbf16>, %G: tensor<2x128x8x64xf32>, %beta: tensor<2x100x8xf32>) {
  // expected-error @+1 {{operand 'beta' has T = 100 (dimension 1), but T of operand 'q' is 128}}
  %Aqk, %Akkd = kda.intra_diag %q, %q, %G, %beta {scale = 0.125 : f32}
      : (tensor<2x128x4x64xbf16>, tensor<2x128x4x64xbf16>, tensor<2x128x8x64xf32>, tensor<2x100x8xf32>)
      -> (tensor<2x128x8x64xbf16>, tensor<2x128x8x16xf32>)
  return
}

// -----

func.func @intra_diag_varlen_batch(%q: tensor<?x?x4x64xbf16>, %k: tensor<2x?x4x64xbf16>, %G: tensor<?x?x8x64xf32>, %beta: tensor<?x?x8xf32>, %cu: tensor<?xi64>) {
  // expected-error @+1 {{varlen inputs (with 'cu_seqlens') must have batch size B = 1, got B = 2}}
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta cu_seqlens %cu {scale = 0.125 : f32}
      : (tensor<?x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<?x?x8x64xf32>, tensor<?x?x8xf32>, tensor<?xi64>)
      -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x16xf32>)
  return
}

// -----

func.func @intra_diag_aqk_chunk(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>) {
  // expected-error @+1 {{result 'Aqk' has BT = 32 (dimension 3), but attribute 'chunk_size' is 64}}
  %Aqk, %Akkd = kda.intra_diag %q, %q, %G, %beta {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>)
      -> (tensor<2x?x8x32xbf16>, tensor<2x?x8x16xf32>)
  return
}

// -----

func.func @intra_diag_aqk_dynamic_chunk(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>) {
  // expected-error @+1 {{result 'Aqk' must have a static BT (dimension 3): kernels are specialized on it}}
  %Aqk, %Akkd = kda.intra_diag %q, %q, %G, %beta {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>)
      -> (tensor<2x?x8x?xbf16>, tensor<2x?x8x16xf32>)
  return
}

// -----

func.func @intra_diag_aqk_dtype(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>) {
  // expected-error @+1 {{result 'Aqk' has element type 'f32', but the element type of operand 'q' is 'bf16'}}
  %Aqk, %Akkd = kda.intra_diag %q, %q, %G, %beta {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>)
      -> (tensor<2x?x8x64xf32>, tensor<2x?x8x16xf32>)
  return
}

// -----

func.func @intra_diag_akkd_sub_chunk(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>) {
  // expected-error @+1 {{result 'Akkd' has BC = 64 (dimension 3), but attribute 'sub_chunk_size' is 16}}
  %Aqk, %Akkd = kda.intra_diag %q, %q, %G, %beta {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>)
  return
}

// -----

func.func @intra_diag_akkd_rank(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>) {
  // expected-error @+1 {{result 'Akkd' must have rank 4 [B, T, HV, BC], got rank 5}}
  %Aqk, %Akkd = kda.intra_diag %q, %q, %G, %beta {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x4x16xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// kda.inter_solve
//===----------------------------------------------------------------------===//

func.func @inter_solve_sub_chunk_size(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>,
    %Aqk: tensor<2x?x8x64xbf16>, %Akkd: tensor<2x?x8x8xf32>) {
  // expected-error @+1 {{attribute 'sub_chunk_size' must be 16, got 8}}
  %Aqk2, %M = kda.inter_solve %q, %q, %G, %beta, %Aqk, %Akkd {scale = 0.125 : f32, sub_chunk_size = 8 : i64}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>,
         tensor<2x?x8x64xbf16>, tensor<2x?x8x8xf32>) -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @inter_solve_chunk_size(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>,
    %Aqk: tensor<2x?x8x128xbf16>, %Akkd: tensor<2x?x8x16xf32>) {
  // expected-error @+1 {{attribute 'chunk_size' must be 16, 32 or 64, got 128}}
  %Aqk2, %M = kda.inter_solve %q, %q, %G, %beta, %Aqk, %Akkd {chunk_size = 128 : i64, scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>,
         tensor<2x?x8x128xbf16>, tensor<2x?x8x16xf32>) -> (tensor<2x?x8x128xbf16>, tensor<2x?x8x128xbf16>)
  return
}

// -----

func.func @inter_solve_scale_nan(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>,
    %Aqk: tensor<2x?x8x64xbf16>, %Akkd: tensor<2x?x8x16xf32>) {
  // expected-error @+1 {{attribute 'scale' must be finite and positive, got NaN}}
  %Aqk2, %M = kda.inter_solve %q, %q, %G, %beta, %Aqk, %Akkd {scale = 0x7FC00000 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>,
         tensor<2x?x8x64xbf16>, tensor<2x?x8x16xf32>) -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @inter_solve_aqk_chunk(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>,
    %Aqk: tensor<2x?x8x32xbf16>, %Akkd: tensor<2x?x8x16xf32>) {
  // expected-error @+1 {{operand 'Aqk' has BT = 32 (dimension 3), but attribute 'chunk_size' is 64}}
  %Aqk2, %M = kda.inter_solve %q, %q, %G, %beta, %Aqk, %Akkd {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>,
         tensor<2x?x8x32xbf16>, tensor<2x?x8x16xf32>) -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @inter_solve_aqk_dtype(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>,
    %Aqk: tensor<2x?x8x64xf16>, %Akkd: tensor<2x?x8x16xf32>) {
  // expected-error @+1 {{operand 'Aqk' has element type 'f16', but the element type of operand 'q' is 'bf16'}}
  %Aqk2, %M = kda.inter_solve %q, %q, %G, %beta, %Aqk, %Akkd {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>,
         tensor<2x?x8x64xf16>, tensor<2x?x8x16xf32>) -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @inter_solve_akkd_heads(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>,
    %Aqk: tensor<2x?x8x64xbf16>, %Akkd: tensor<2x?x4x16xf32>) {
  // expected-error @+1 {{operand 'Akkd' has HV = 4 (dimension 2), but HV of operand 'G' is 8}}
  %Aqk2, %M = kda.inter_solve %q, %q, %G, %beta, %Aqk, %Akkd {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>,
         tensor<2x?x8x64xbf16>, tensor<2x?x4x16xf32>) -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @inter_solve_beta_heads(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x4xf32>,
    %Aqk: tensor<2x?x8x64xbf16>, %Akkd: tensor<2x?x8x16xf32>) {
  // expected-error @+1 {{operand 'beta' has HV = 4 (dimension 2), but HV of operand 'G' is 8}}
  %Aqk2, %M = kda.inter_solve %q, %q, %G, %beta, %Aqk, %Akkd {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x4xf32>,
         tensor<2x?x8x64xbf16>, tensor<2x?x8x16xf32>) -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @inter_solve_aqk_out_tokens(%q: tensor<2x64x4x64xbf16>, %G: tensor<2x64x8x64xf32>, %beta: tensor<2x64x8xf32>,
    %Aqk: tensor<2x64x8x64xbf16>, %Akkd: tensor<2x64x8x16xf32>) {
  // expected-error @+1 {{result 'Aqk_out' has T = 32 (dimension 1), but T of operand 'q' is 64}}
  %Aqk2, %M = kda.inter_solve %q, %q, %G, %beta, %Aqk, %Akkd {scale = 0.125 : f32}
      : (tensor<2x64x4x64xbf16>, tensor<2x64x4x64xbf16>, tensor<2x64x8x64xf32>, tensor<2x64x8xf32>,
         tensor<2x64x8x64xbf16>, tensor<2x64x8x16xf32>) -> (tensor<2x32x8x64xbf16>, tensor<2x64x8x64xbf16>)
  return
}

// -----

func.func @inter_solve_aqk_out_dtype(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>,
    %Aqk: tensor<2x?x8x64xbf16>, %Akkd: tensor<2x?x8x16xf32>) {
  // expected-error @+1 {{result 'Aqk_out' has element type 'f32', but the element type of operand 'q' is 'bf16'}}
  %Aqk2, %M = kda.inter_solve %q, %q, %G, %beta, %Aqk, %Akkd {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>,
         tensor<2x?x8x64xbf16>, tensor<2x?x8x16xf32>) -> (tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @inter_solve_m_chunk(%q: tensor<1x?x4x64xbf16>, %G: tensor<1x?x8x64xf32>, %beta: tensor<1x?x8xf32>,
    %Aqk: tensor<1x?x8x32xbf16>, %Akkd: tensor<1x?x8x16xf32>, %cu: tensor<?xi64>) {
  // expected-error @+1 {{result 'M' has BT = 64 (dimension 3), but attribute 'chunk_size' is 32}}
  %Aqk2, %M = kda.inter_solve %q, %q, %G, %beta, %Aqk, %Akkd cu_seqlens %cu {chunk_size = 32 : i64, scale = 0.125 : f32}
      : (tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>, tensor<1x?x8x64xf32>, tensor<1x?x8xf32>,
         tensor<1x?x8x32xbf16>, tensor<1x?x8x16xf32>, tensor<?xi64>) -> (tensor<1x?x8x32xbf16>, tensor<1x?x8x64xbf16>)
  return
}

// -----

func.func @inter_solve_m_dtype(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>,
    %Aqk: tensor<2x?x8x64xbf16>, %Akkd: tensor<2x?x8x16xf32>) {
  // expected-error @+1 {{result 'M' has element type 'f16', but the element type of operand 'q' is 'bf16'}}
  %Aqk2, %M = kda.inter_solve %q, %q, %G, %beta, %Aqk, %Akkd {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>,
         tensor<2x?x8x64xbf16>, tensor<2x?x8x16xf32>) -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf16>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// kda.wy_recompute
//===----------------------------------------------------------------------===//

func.func @wy_recompute_chunk_size(%k: tensor<2x?x4x64xbf16>, %v: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
    %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{attribute 'chunk_size' must be 16, 32 or 64, got 0}}
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M {chunk_size = 0 : i64}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @wy_recompute_v_rank(%k: tensor<2x?x4x64xbf16>, %v: tensor<2x?x1024xbf16>, %G: tensor<2x?x8x64xf32>,
    %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{operand 'v' must have rank 4 [B, T, HV, V], got rank 3}}
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x4x64xbf16>, tensor<2x?x1024xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @wy_recompute_v_dynamic(%k: tensor<2x?x4x64xbf16>, %v: tensor<2x?x8x?xbf16>, %G: tensor<2x?x8x64xf32>,
    %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{operand 'v' must have a static V (dimension 3): kernels are specialized on it}}
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x?xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x?xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @wy_recompute_v_too_large(%k: tensor<2x?x4x64xbf16>, %v: tensor<2x?x8x512xbf16>, %G: tensor<2x?x8x64xf32>,
    %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{operand 'v' has V = 512, but V must be in [1, 256]}}
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x512xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x512xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @wy_recompute_gate_heads(%k: tensor<2x?x4x64xbf16>, %v: tensor<2x?x8x128xbf16>, %G: tensor<2x?x4x64xf32>,
    %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{operand 'G' has HV = 4 (dimension 2), but HV of operand 'v' is 8}}
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @wy_recompute_head_ratio(%k: tensor<2x?x2x64xbf16>, %v: tensor<2x?x3x128xbf16>, %G: tensor<2x?x3x64xf32>,
    %beta: tensor<2x?x3xf32>, %M: tensor<2x?x3x64xbf16>) {
  // expected-error @+1 {{HV = 3 (operand 'v') is not a multiple of H = 2 (operand 'k'): each value head must read exactly one q/k head}}
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x2x64xbf16>, tensor<2x?x3x128xbf16>, tensor<2x?x3x64xf32>, tensor<2x?x3xf32>, tensor<2x?x3x64xbf16>)
      -> (tensor<2x?x3x64xbf16>, tensor<2x?x3x128xbf16>, tensor<2x?x3x64xbf16>)
  return
}

// -----

func.func @wy_recompute_m_chunk(%k: tensor<2x?x4x64xbf16>, %v: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
    %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{operand 'M' has BT = 64 (dimension 3), but attribute 'chunk_size' is 32}}
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M {chunk_size = 32 : i64}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @wy_recompute_m_dtype(%k: tensor<2x?x4x64xbf16>, %v: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
    %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{operand 'M' has element type 'f32', but the element type of operand 'k' is 'bf16'}}
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>, tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @wy_recompute_w_keys(%k: tensor<2x?x4x64xbf16>, %v: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
    %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{result 'w' has K = 128 (dimension 3), but K of operand 'k' is 64}}
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x128xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @wy_recompute_w_dtype(%k: tensor<2x?x4x64xbf16>, %v: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
    %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{result 'w' has element type 'f32', but the element type of operand 'k' is 'bf16'}}
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xf32>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @wy_recompute_u_values(%k: tensor<2x?x4x64xbf16>, %v: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
    %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{result 'u' has V = 64 (dimension 3), but V of operand 'v' is 128}}
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @wy_recompute_u_dtype(%k: tensor<2x?x4x64xbf16>, %v: tensor<2x?x8x128xf32>, %G: tensor<2x?x8x64xf32>,
    %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{result 'u' has element type 'bf16', but the element type of operand 'v' is 'f32'}}
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x128xf32>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xbf16>)
  return
}

// -----

func.func @wy_recompute_kg_dtype(%k: tensor<2x?x4x64xbf16>, %v: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
    %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{result 'kg' has element type 'f16', but the element type of operand 'k' is 'bf16'}}
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf16>)
  return
}

// -----

func.func @wy_recompute_cu_seqlens_rank(%k: tensor<1x?x4x64xbf16>, %v: tensor<1x?x8x128xbf16>, %G: tensor<1x?x8x64xf32>,
    %beta: tensor<1x?x8xf32>, %M: tensor<1x?x8x64xbf16>, %cu: tensor<i64>) {
  // expected-error @+1 {{operand 'cu_seqlens' must have rank 1 [N + 1], got rank 0}}
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M cu_seqlens %cu
      : (tensor<1x?x4x64xbf16>, tensor<1x?x8x128xbf16>, tensor<1x?x8x64xf32>, tensor<1x?x8xf32>, tensor<1x?x8x64xbf16>, tensor<i64>)
      -> (tensor<1x?x8x64xbf16>, tensor<1x?x8x128xbf16>, tensor<1x?x8x64xbf16>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// kda.state_scan_output
//===----------------------------------------------------------------------===//

func.func @state_scan_output_chunk_size(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>, %q: tensor<2x?x4x64xbf16>, %Aqk: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{attribute 'chunk_size' must be 16, 32 or 64, got 8}}
  %o = kda.state_scan_output %kg, %kg, %u, %G, %q, %Aqk {chunk_size = 8 : i64, scale = 0.125 : f32}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xbf16>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @state_scan_output_scale(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>, %q: tensor<2x?x4x64xbf16>, %Aqk: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{attribute 'scale' must be finite and positive, got -1}}
  %o = kda.state_scan_output %kg, %kg, %u, %G, %q, %Aqk {scale = -1.0 : f32}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xbf16>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @state_scan_output_q_dtype(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>, %q: tensor<2x?x4x64xf16>, %Aqk: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{operand 'q' has element type 'f16', but the element type of operand 'kg' is 'bf16'}}
  %o = kda.state_scan_output %kg, %kg, %u, %G, %q, %Aqk {scale = 0.125 : f32}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x4x64xf16>, tensor<2x?x8x64xbf16>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @state_scan_output_aqk_dtype(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>, %q: tensor<2x?x4x64xbf16>, %Aqk: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{operand 'Aqk' has element type 'f32', but the element type of operand 'kg' is 'bf16'}}
  %o = kda.state_scan_output %kg, %kg, %u, %G, %q, %Aqk {scale = 0.125 : f32}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @state_scan_output_aqk_chunk(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>, %q: tensor<2x?x4x64xbf16>, %Aqk: tensor<2x?x8x32xbf16>) {
  // expected-error @+1 {{operand 'Aqk' has BT = 32 (dimension 3), but attribute 'chunk_size' is 64}}
  %o = kda.state_scan_output %kg, %kg, %u, %G, %q, %Aqk {scale = 0.125 : f32}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x4x64xbf16>, tensor<2x?x8x32xbf16>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @state_scan_output_q_keys(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>, %q: tensor<2x?x4x32xbf16>, %Aqk: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{operand 'q' has K = 32 (dimension 3), but K of operand 'kg' is 64}}
  %o = kda.state_scan_output %kg, %kg, %u, %G, %q, %Aqk {scale = 0.125 : f32}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x4x32xbf16>, tensor<2x?x8x64xbf16>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @state_scan_output_o_dtype(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>, %q: tensor<2x?x4x64xbf16>, %Aqk: tensor<2x?x8x64xbf16>) {
  // expected-error @+1 {{result 'o' has element type 'f16', but the element type of operand 'u' is 'bf16'}}
  %o = kda.state_scan_output %kg, %kg, %u, %G, %q, %Aqk {scale = 0.125 : f32}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xbf16>) -> tensor<2x?x8x128xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// kda.state_scan
//===----------------------------------------------------------------------===//

func.func @state_scan_chunk_size(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{attribute 'chunk_size' must be 16, 32 or 64, got 8}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G {chunk_size = 8 : i64}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  return
}

// -----

func.func @state_scan_w_dtype(%kg: tensor<2x?x8x64xbf16>, %w: tensor<2x?x8x64xf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{operand 'w' has element type 'f16', but the element type of operand 'kg' is 'bf16'}}
  %h, %vn = kda.state_scan %kg, %w, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  return
}

// -----

func.func @state_scan_u_tokens(%kg: tensor<2x128x8x64xbf16>, %u: tensor<2x64x8x128xbf16>, %G: tensor<2x128x8x64xf32>) {
  // expected-error @+1 {{operand 'u' has T = 64 (dimension 1), but T of operand 'kg' is 128}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G
      : (tensor<2x128x8x64xbf16>, tensor<2x128x8x64xbf16>, tensor<2x64x8x128xbf16>, tensor<2x128x8x64xf32>)
      -> (tensor<2x2x8x64x128xbf16>, tensor<2x128x8x128xbf16>)
  return
}

// -----

func.func @state_scan_gate_keys(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x128xf32>) {
  // expected-error @+1 {{operand 'G' has K = 128 (dimension 3), but K of operand 'kg' is 64}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x128xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  return
}

// -----

func.func @state_scan_varlen_batch(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>, %cu: tensor<3xi64>) {
  // expected-error @+1 {{varlen inputs (with 'cu_seqlens') must have batch size B = 1, got B = 2}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G cu_seqlens %cu
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<3xi64>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  return
}

// -----

func.func @state_scan_initial_state_rank(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
    %h0: tensor<8x64x128xf32>) {
  // expected-error @+1 {{operand 'initial_state' must have rank 4 [N, HV, K, V], got rank 3}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G initial_state %h0
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<8x64x128xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  return
}

// -----

func.func @state_scan_initial_state_batch(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
    %h0: tensor<3x8x64x128xf32>) {
  // expected-error @+1 {{operand 'initial_state' has N = 3 (dimension 0), but the number of sequences (B of operand 'kg') is 2 (state_layout kv: states are [.., K, V])}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G initial_state %h0
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<3x8x64x128xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  return
}

// -----

func.func @state_scan_initial_state_sequences(%kg: tensor<1x?x8x64xbf16>, %u: tensor<1x?x8x128xbf16>, %G: tensor<1x?x8x64xf32>,
    %h0: tensor<2x8x64x128xf32>, %cu: tensor<4xi64>) {
  // expected-error @+1 {{operand 'initial_state' has N = 2 (dimension 0), but the number of sequences (size of operand 'cu_seqlens' minus 1) is 3}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G initial_state %h0 cu_seqlens %cu
      : (tensor<1x?x8x64xbf16>, tensor<1x?x8x64xbf16>, tensor<1x?x8x128xbf16>, tensor<1x?x8x64xf32>, tensor<2x8x64x128xf32>, tensor<4xi64>)
      -> (tensor<1x?x8x64x128xbf16>, tensor<1x?x8x128xbf16>)
  return
}

// -----

func.func @state_scan_initial_state_layout(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
    %h0: tensor<2x8x64x128xf32>) {
  // expected-error @+1 {{operand 'initial_state' has V = 64 (dimension 2), but V of operand 'u' is 128 (state_layout vk: states are [.., V, K])}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G initial_state %h0 {state_layout = #kda<state_layout vk>}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x8x64x128xf32>)
      -> (tensor<2x?x8x128x64xbf16>, tensor<2x?x8x128xbf16>)
  return
}

// -----

func.func @state_scan_initial_state_bf16(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
    %h0: tensor<2x8x64x128xbf16>) {
  // ODS: states are fp32.
  // expected-error @+1 {{operand #4 must be ranked tensor of 32-bit float values}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G initial_state %h0
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>, tensor<2x8x64x128xbf16>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  return
}

// -----

func.func @state_scan_h_rank(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{result 'h' must have rank 5 [B, NT, HV, K, V], got rank 4}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>)
      -> (tensor<2x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  return
}

// -----

func.func @state_scan_h_chunks(%kg: tensor<2x200x8x64xbf16>, %u: tensor<2x200x8x128xbf16>, %G: tensor<2x200x8x64xf32>) {
  // expected-error @+1 {{result 'h' has NT = 3 (dimension 1), but ceil(T / chunk_size) = ceil(200 / 64) is 4}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G
      : (tensor<2x200x8x64xbf16>, tensor<2x200x8x64xbf16>, tensor<2x200x8x128xbf16>, tensor<2x200x8x64xf32>)
      -> (tensor<2x3x8x64x128xbf16>, tensor<2x200x8x128xbf16>)
  return
}

// -----

func.func @state_scan_h_layout(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{result 'h' has V = 64 (dimension 3), but V of operand 'u' is 128 (state_layout vk: states are [.., V, K])}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G {state_layout = #kda<state_layout vk>}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  return
}

// -----

func.func @state_scan_h_dtype(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{result 'h' has element type 'f32', but the element type of operand 'kg' is 'bf16'}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xf32>, tensor<2x?x8x128xbf16>)
  return
}

// -----

func.func @state_scan_v_new_heads(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{result 'v_new' has HV = 4 (dimension 2), but HV of operand 'kg' is 8}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x4x128xbf16>)
  return
}

// -----

func.func @state_scan_v_new_dtype(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xf32>, %G: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{result 'v_new' has element type 'bf16', but the element type of operand 'u' is 'f32'}}
  %h, %vn = kda.state_scan %kg, %kg, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xf32>, tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  return
}

// -----

func.func @state_scan_final_state_batch(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{result 'final_state' has N = 1 (dimension 0), but the number of sequences (B of operand 'kg') is 2 (state_layout kv: states are [.., K, V])}}
  %h, %vn, %ht = kda.state_scan %kg, %kg, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>, tensor<1x8x64x128xf32>)
  return
}

// -----

func.func @state_scan_final_state_vs_initial(%kg: tensor<?x?x8x64xbf16>, %u: tensor<?x?x8x128xbf16>, %G: tensor<?x?x8x64xf32>,
    %h0: tensor<3x8x64x128xf32>) {
  // expected-error @+1 {{result 'final_state' has N = 2 (dimension 0), but N of operand 'initial_state' is 3 (state_layout kv: states are [.., K, V])}}
  %h, %vn, %ht = kda.state_scan %kg, %kg, %u, %G initial_state %h0
      : (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x64xf32>, tensor<3x8x64x128xf32>)
      -> (tensor<?x?x8x64x128xbf16>, tensor<?x?x8x128xbf16>, tensor<2x8x64x128xf32>)
  return
}

// -----

func.func @state_scan_final_state_bf16(%kg: tensor<2x?x8x64xbf16>, %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>) {
  // ODS: states are fp32.
  // expected-error @+1 {{result #2 must be ranked tensor of 32-bit float values}}
  %h, %vn, %ht = kda.state_scan %kg, %kg, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>, tensor<2x8x64x128xbf16>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// kda.output
//===----------------------------------------------------------------------===//

func.func @output_chunk_size(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %Aqk: tensor<2x?x8x64xbf16>,
    %h: tensor<2x?x8x64x128xbf16>, %vn: tensor<2x?x8x128xbf16>) {
  // expected-error @+1 {{attribute 'chunk_size' must be 16, 32 or 64, got 100}}
  %o = kda.output %q, %G, %Aqk, %h, %vn {chunk_size = 100 : i64, scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64x128xbf16>,
         tensor<2x?x8x128xbf16>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @output_scale_zero(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %Aqk: tensor<2x?x8x64xbf16>,
    %h: tensor<2x?x8x64x128xbf16>, %vn: tensor<2x?x8x128xbf16>) {
  // expected-error @+1 {{attribute 'scale' must be finite and positive, got -0}}
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = -0.0 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64x128xbf16>,
         tensor<2x?x8x128xbf16>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @output_q_rank(%q: tensor<2x?x256xbf16>, %G: tensor<2x?x8x64xf32>, %Aqk: tensor<2x?x8x64xbf16>,
    %h: tensor<2x?x8x64x128xbf16>, %vn: tensor<2x?x8x128xbf16>) {
  // expected-error @+1 {{operand 'q' must have rank 4 [B, T, H, K], got rank 3}}
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x?x256xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64x128xbf16>,
         tensor<2x?x8x128xbf16>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @output_head_ratio(%q: tensor<2x?x3x64xbf16>, %G: tensor<2x?x8x64xf32>, %Aqk: tensor<2x?x8x64xbf16>,
    %h: tensor<2x?x8x64x128xbf16>, %vn: tensor<2x?x8x128xbf16>) {
  // expected-error @+1 {{HV = 8 (operand 'G') is not a multiple of H = 3 (operand 'q'): each value head must read exactly one q/k head}}
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x?x3x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64x128xbf16>,
         tensor<2x?x8x128xbf16>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @output_aqk_chunk(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %Aqk: tensor<2x?x8x64xbf16>,
    %h: tensor<2x?x8x64x128xbf16>, %vn: tensor<2x?x8x128xbf16>) {
  // expected-error @+1 {{operand 'Aqk' has BT = 64 (dimension 3), but attribute 'chunk_size' is 32}}
  %o = kda.output %q, %G, %Aqk, %h, %vn {chunk_size = 32 : i64, scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64x128xbf16>,
         tensor<2x?x8x128xbf16>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @output_aqk_dtype(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %Aqk: tensor<2x?x8x64xf32>,
    %h: tensor<2x?x8x64x128xbf16>, %vn: tensor<2x?x8x128xbf16>) {
  // expected-error @+1 {{operand 'Aqk' has element type 'f32', but the element type of operand 'q' is 'bf16'}}
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xf32>, tensor<2x?x8x64x128xbf16>,
         tensor<2x?x8x128xbf16>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @output_v_new_heads(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %Aqk: tensor<2x?x8x64xbf16>,
    %h: tensor<2x?x8x64x128xbf16>, %vn: tensor<2x?x16x128xbf16>) {
  // expected-error @+1 {{operand 'v_new' has HV = 16 (dimension 2), but HV of operand 'G' is 8}}
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64x128xbf16>,
         tensor<2x?x16x128xbf16>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @output_varlen_batch(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %Aqk: tensor<2x?x8x64xbf16>,
    %h: tensor<2x?x8x64x128xbf16>, %vn: tensor<2x?x8x128xbf16>, %cu: tensor<?xi64>) {
  // expected-error @+1 {{varlen inputs (with 'cu_seqlens') must have batch size B = 1, got B = 2}}
  %o = kda.output %q, %G, %Aqk, %h, %vn cu_seqlens %cu {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64x128xbf16>,
         tensor<2x?x8x128xbf16>, tensor<?xi64>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @output_h_rank(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %Aqk: tensor<2x?x8x64xbf16>,
    %h: tensor<2x8x64x128xbf16>, %vn: tensor<2x?x8x128xbf16>) {
  // expected-error @+1 {{operand 'h' must have rank 5 [B, NT, HV, V, K], got rank 4}}
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32, state_layout = #kda<state_layout vk>}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>, tensor<2x8x64x128xbf16>,
         tensor<2x?x8x128xbf16>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @output_h_layout(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %Aqk: tensor<2x?x8x64xbf16>,
    %h: tensor<2x?x8x128x64xbf16>, %vn: tensor<2x?x8x128xbf16>) {
  // expected-error @+1 {{operand 'h' has K = 128 (dimension 3), but K of operand 'q' is 64 (state_layout kv: states are [.., K, V])}}
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128x64xbf16>,
         tensor<2x?x8x128xbf16>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @output_h_chunks(%q: tensor<2x65x4x64xbf16>, %G: tensor<2x65x8x64xf32>, %Aqk: tensor<2x65x8x32xbf16>,
    %h: tensor<2x2x8x64x128xbf16>, %vn: tensor<2x65x8x128xbf16>) {
  // expected-error @+1 {{operand 'h' has NT = 2 (dimension 1), but ceil(T / chunk_size) = ceil(65 / 32) is 3 (state_layout kv: states are [.., K, V])}}
  %o = kda.output %q, %G, %Aqk, %h, %vn {chunk_size = 32 : i64, scale = 0.125 : f32}
      : (tensor<2x65x4x64xbf16>, tensor<2x65x8x64xf32>, tensor<2x65x8x32xbf16>, tensor<2x2x8x64x128xbf16>,
         tensor<2x65x8x128xbf16>) -> tensor<2x65x8x128xbf16>
  return
}

// -----

func.func @output_h_dtype(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %Aqk: tensor<2x?x8x64xbf16>,
    %h: tensor<2x?x8x64x128xf32>, %vn: tensor<2x?x8x128xbf16>) {
  // expected-error @+1 {{operand 'h' has element type 'f32', but the element type of operand 'q' is 'bf16'}}
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64x128xf32>,
         tensor<2x?x8x128xbf16>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @output_o_values(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %Aqk: tensor<2x?x8x64xbf16>,
    %h: tensor<2x?x8x64x128xbf16>, %vn: tensor<2x?x8x128xbf16>) {
  // expected-error @+1 {{result 'o' has V = 64 (dimension 3), but V of operand 'v_new' is 128}}
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64x128xbf16>,
         tensor<2x?x8x128xbf16>) -> tensor<2x?x8x64xbf16>
  return
}

// -----

func.func @output_o_dtype(%q: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>, %Aqk: tensor<2x?x8x64xbf16>,
    %h: tensor<2x?x8x64x128xbf16>, %vn: tensor<2x?x8x128xf32>) {
  // expected-error @+1 {{result 'o' has element type 'bf16', but the element type of operand 'v_new' is 'f32'}}
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64x128xbf16>,
         tensor<2x?x8x128xf32>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// kda.chunk_fwd
//===----------------------------------------------------------------------===//

func.func @chunk_fwd_chunk_size(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{attribute 'chunk_size' must be 16, 32 or 64, got 8}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta {chunk_size = 8 : i64}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_sub_chunk_size(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{attribute 'sub_chunk_size' must be 16, got 64}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta {sub_chunk_size = 64 : i64}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_scale_negative(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{attribute 'scale' must be finite and positive, got -1}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta {scale = -1.0 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_q_dynamic_keys(%q: tensor<2x?x4x?xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{operand 'q' must have a static K (dimension 3): kernels are specialized on it}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta
      : (tensor<2x?x4x?xbf16>, tensor<2x?x4x?xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_k_heads(%q: tensor<2x?x4x64xbf16>, %k: tensor<2x?x2x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{operand 'k' has H = 2 (dimension 2), but H of operand 'q' is 4}}
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<2x?x4x64xbf16>, tensor<2x?x2x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_k_dtype(%q: tensor<2x?x4x64xbf16>, %k: tensor<2x?x4x64xf32>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{operand 'k' has element type 'f32', but the element type of operand 'q' is 'bf16'}}
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_g_rank(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x256xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{operand 'g' must have rank 4 [B, T, HV, K], got rank 3}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x256xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_g_keys(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x32xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{operand 'g' has K = 32 (dimension 3), but K of operand 'q' is 64}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x32xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_beta_tokens(%q: tensor<2x10x4x64xbf16>, %v: tensor<2x10x4x64xbf16>, %g: tensor<2x10x4x64xf32>, %beta: tensor<2x12x4xf32>) {
  // expected-error @+1 {{operand 'beta' has T = 12 (dimension 1), but T of operand 'q' is 10}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta
      : (tensor<2x10x4x64xbf16>, tensor<2x10x4x64xbf16>, tensor<2x10x4x64xbf16>, tensor<2x10x4x64xf32>, tensor<2x12x4xf32>)
      -> tensor<2x10x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_v_heads(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x3x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{operand 'v' has HV = 3 (dimension 2), but HV of operand 'g' is 4}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x3x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_head_ratio(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x6x64xbf16>, %g: tensor<2x?x6x64xf32>, %beta: tensor<2x?x6xf32>) {
  // expected-error @+1 {{HV = 6 (operand 'g') is not a multiple of H = 4 (operand 'q'): each value head must read exactly one q/k head}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x6x64xbf16>, tensor<2x?x6x64xf32>, tensor<2x?x6xf32>)
      -> tensor<2x?x6x64xbf16>
  return
}

// -----

func.func @chunk_fwd_v_zero(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x0xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{operand 'v' has V = 0, but V must be in [1, 256]}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x0xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x0xbf16>
  return
}

// -----

func.func @chunk_fwd_varlen_batch(%q: tensor<3x?x4x64xbf16>, %v: tensor<3x?x4x64xbf16>, %g: tensor<3x?x4x64xf32>, %beta: tensor<3x?x4xf32>, %cu: tensor<4xi64>) {
  // expected-error @+1 {{varlen inputs (with 'cu_seqlens') must have batch size B = 1, got B = 3}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta cu_seqlens %cu
      : (tensor<3x?x4x64xbf16>, tensor<3x?x4x64xbf16>, tensor<3x?x4x64xbf16>, tensor<3x?x4x64xf32>, tensor<3x?x4xf32>, tensor<4xi64>)
      -> tensor<3x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_a_log_precomputed(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand 'a_log' is only allowed with an in-kernel gate (gate_mode softplus or lower_bound)}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta a_log %a
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>, tensor<4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_softplus_without_a_log(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{gate_mode softplus requires operand 'a_log'}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta {gate_mode = #kda<gate_mode softplus>}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_lower_bound_missing(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{gate_mode lower_bound requires attribute 'lower_bound'}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta {gate_mode = #kda<gate_mode lower_bound>, safe_gate}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_lower_bound_precomputed(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{attribute 'lower_bound' requires gate_mode lower_bound}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta {lower_bound = -5.0 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_a_log_heads(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x8x64xbf16>, %g: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand 'a_log' has HV = 4 (dimension 0), but HV of operand 'g' is 8}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta a_log %a {gate_mode = #kda<gate_mode softplus>}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>, tensor<4xf32>)
      -> tensor<2x?x8x64xbf16>
  return
}

// -----

func.func @chunk_fwd_dt_bias_flat(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x8x64xbf16>, %g: tensor<2x?x8x64xf32>, %beta: tensor<2x?x8xf32>,
    %a: tensor<8xf32>, %dt: tensor<256xf32>) {
  // expected-error @+1 {{operand 'dt_bias' has HV * K = 256 (dimension 0), but HV * K of operand 'g' is 512}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta a_log %a dt_bias %dt {gate_mode = #kda<gate_mode softplus>}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8xf32>,
         tensor<8xf32>, tensor<256xf32>) -> tensor<2x?x8x64xbf16>
  return
}

// -----

func.func @chunk_fwd_safe_gate_softplus(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'safe_gate' with an in-kernel gate requires gate_mode lower_bound (with 'lower_bound' in [-5, 0)), got gate_mode softplus}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta a_log %a {gate_mode = #kda<gate_mode softplus>, safe_gate}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>, tensor<4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_safe_gate_lower_bound_too_small(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{attribute 'lower_bound' must be in [-5, 0) with 'safe_gate', got -6}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -6.0 : f32, safe_gate}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_lower_bound_zero(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{attribute 'lower_bound' must be finite and negative, got 0}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta {gate_mode = #kda<gate_mode lower_bound>, lower_bound = 0.0 : f32, safe_gate}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_neg_eigval_without_sigmoid(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{attribute 'allow_neg_eigval' requires 'use_beta_sigmoid'}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta {allow_neg_eigval}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_initial_state_batch(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>,
    %h0: tensor<1x4x64x64xf32>) {
  // expected-error @+1 {{operand 'initial_state' has N = 1 (dimension 0), but the number of sequences (B of operand 'q') is 2 (state_layout kv: states are [.., K, V])}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta initial_state %h0
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>, tensor<1x4x64x64xf32>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_initial_state_layout(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x32xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>,
    %h0: tensor<2x4x64x32xf32>) {
  // expected-error @+1 {{operand 'initial_state' has V = 64 (dimension 2), but V of operand 'v' is 32 (state_layout vk: states are [.., V, K])}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta initial_state %h0 {state_layout = #kda<state_layout vk>}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x32xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>, tensor<2x4x64x32xf32>)
      -> tensor<2x?x4x32xbf16>
  return
}

// -----

func.func @chunk_fwd_initial_state_rank(%q: tensor<1x?x4x64xbf16>, %v: tensor<1x?x4x64xbf16>, %g: tensor<1x?x4x64xf32>, %beta: tensor<1x?x4xf32>,
    %h0: tensor<4x64x64xf32>, %cu: tensor<?xi64>) {
  // expected-error @+1 {{operand 'initial_state' must have rank 4 [N, HV, V, K], got rank 3}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta initial_state %h0 cu_seqlens %cu {state_layout = #kda<state_layout vk>}
      : (tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>, tensor<1x?x4x64xf32>, tensor<1x?x4xf32>, tensor<4x64x64xf32>, tensor<?xi64>)
      -> tensor<1x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_initial_state_bf16(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>,
    %h0: tensor<2x4x64x64xbf16>) {
  // ODS: states are fp32.
  // expected-error @+1 {{operand #5 must be ranked tensor of 32-bit float values}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta initial_state %h0
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>, tensor<2x4x64x64xbf16>)
      -> tensor<2x?x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_o_tokens(%q: tensor<2x100x4x64xbf16>, %v: tensor<2x100x4x64xbf16>, %g: tensor<2x100x4x64xf32>, %beta: tensor<2x100x4xf32>) {
  // expected-error @+1 {{result 'o' has T = 99 (dimension 1), but T of operand 'q' is 100}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta
      : (tensor<2x100x4x64xbf16>, tensor<2x100x4x64xbf16>, tensor<2x100x4x64xbf16>, tensor<2x100x4x64xf32>, tensor<2x100x4xf32>)
      -> tensor<2x99x4x64xbf16>
  return
}

// -----

func.func @chunk_fwd_o_dtype(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xf32>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{result 'o' has element type 'f32', but the element type of operand 'q' is 'bf16'}}
  %o = kda.chunk_fwd %q, %q, %v, %g, %beta
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> tensor<2x?x4x64xf32>
  return
}

// -----

func.func @chunk_fwd_final_state_rank(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{result 'final_state' must have rank 4 [N, HV, K, V], got rank 5}}
  %o, %ht = kda.chunk_fwd %q, %q, %v, %g, %beta
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> (tensor<2x?x4x64xbf16>, tensor<2x1x4x64x64xf32>)
  return
}

// -----

func.func @chunk_fwd_final_state_sequences(%q: tensor<1x?x4x64xbf16>, %v: tensor<1x?x4x64xbf16>, %g: tensor<1x?x4x64xf32>, %beta: tensor<1x?x4xf32>,
    %cu: tensor<3xi64>) {
  // expected-error @+1 {{result 'final_state' has N = 1 (dimension 0), but the number of sequences (size of operand 'cu_seqlens' minus 1) is 2 (state_layout kv: states are [.., K, V])}}
  %o, %ht = kda.chunk_fwd %q, %q, %v, %g, %beta cu_seqlens %cu
      : (tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>, tensor<1x?x4x64xf32>, tensor<1x?x4xf32>, tensor<3xi64>)
      -> (tensor<1x?x4x64xbf16>, tensor<1x4x64x64xf32>)
  return
}

// -----

func.func @chunk_fwd_final_state_heads(%q: tensor<2x?x4x64xbf16>, %v: tensor<2x?x4x64xbf16>, %g: tensor<2x?x4x64xf32>, %beta: tensor<2x?x4xf32>) {
  // expected-error @+1 {{result 'final_state' has HV = 2 (dimension 1), but HV of operand 'g' is 4 (state_layout kv: states are [.., K, V])}}
  %o, %ht = kda.chunk_fwd %q, %q, %v, %g, %beta
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf32>, tensor<2x?x4xf32>)
      -> (tensor<2x?x4x64xbf16>, tensor<2x2x64x64xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// kda.decay_apply and kda.chunk_recurrence
//===----------------------------------------------------------------------===//

func.func @decay_apply_chunk_size(%q: tensor<2x?x4x64xbf16>, %k: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{attribute 'chunk_size' must be 16, 32 or 64, got 8}}
  %qg, %kd, %kg, %dl = kda.decay_apply %q, %k, %G {chunk_size = 8 : i64, scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>) -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>)
  return
}

// -----

func.func @decay_apply_scale(%q: tensor<2x?x4x64xbf16>, %k: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{attribute 'scale' must be finite and positive, got 0}}
  %qg, %kd, %kg, %dl = kda.decay_apply %q, %k, %G {scale = 0.0 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>) -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>)
  return
}

// -----

func.func @decay_apply_k_dtype(%q: tensor<2x?x4x64xbf16>, %k: tensor<2x?x4x64xf16>, %G: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{operand 'k' has element type 'f16', but the element type of operand 'q' is 'bf16'}}
  %qg, %kd, %kg, %dl = kda.decay_apply %q, %k, %G {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xf16>, tensor<2x?x8x64xf32>) -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>)
  return
}

// -----

func.func @decay_apply_kd_dtype(%q: tensor<2x?x4x64xbf16>, %k: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{result 'kd' has element type 'f16', but the element type of operand 'q' is 'bf16'}}
  %qg, %kd, %kg, %dl = kda.decay_apply %q, %k, %G {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>) -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>)
  return
}

// -----

func.func @decay_apply_qg_heads(%q: tensor<2x?x4x64xbf16>, %k: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{result 'qg' has HV = 4 (dimension 2), but HV of operand 'G' is 8}}
  %qg, %kd, %kg, %dl = kda.decay_apply %q, %k, %G {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>) -> (tensor<2x?x4x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>)
  return
}

// -----

func.func @decay_apply_kg_keys(%q: tensor<2x?x4x64xbf16>, %k: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{result 'kg' has K = 32 (dimension 3), but K of operand 'q' is 64}}
  %qg, %kd, %kg, %dl = kda.decay_apply %q, %k, %G {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>) -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x32xbf16>, tensor<2x?x8x64xf32>)
  return
}

// -----

func.func @chunk_recurrence_chunk_size(%qg: tensor<2x?x8x64xbf16>, %kd: tensor<2x?x8x64xbf16>, %kg: tensor<2x?x8x64xbf16>, %v: tensor<2x?x8x128xbf16>, %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>, %Aqk: tensor<2x?x8x64xbf16>, %dl: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{attribute 'chunk_size' must be 16, 32 or 64, got 128}}
  %o = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl {chunk_size = 128 : i64}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @chunk_recurrence_kd_dtype(%qg: tensor<2x?x8x64xbf16>, %kd: tensor<2x?x8x64xf16>, %kg: tensor<2x?x8x64xbf16>, %v: tensor<2x?x8x128xbf16>, %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>, %Aqk: tensor<2x?x8x64xbf16>, %dl: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{operand 'kd' has element type 'f16', but the element type of operand 'qg' is 'bf16'}}
  %o = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @chunk_recurrence_m_dtype(%qg: tensor<2x?x8x64xbf16>, %kd: tensor<2x?x8x64xbf16>, %kg: tensor<2x?x8x64xbf16>, %v: tensor<2x?x8x128xbf16>, %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xf32>, %Aqk: tensor<2x?x8x64xbf16>, %dl: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{operand 'M' has element type 'f32', but the element type of operand 'qg' is 'bf16'}}
  %o = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8xf32>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @chunk_recurrence_m_chunk(%qg: tensor<2x?x8x64xbf16>, %kd: tensor<2x?x8x64xbf16>, %kg: tensor<2x?x8x64xbf16>, %v: tensor<2x?x8x128xbf16>, %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x32xbf16>, %Aqk: tensor<2x?x8x64xbf16>, %dl: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{operand 'M' has BT = 32 (dimension 3), but attribute 'chunk_size' is 64}}
  %o = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8xf32>, tensor<2x?x8x32xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @chunk_recurrence_beta_heads(%qg: tensor<2x?x8x64xbf16>, %kd: tensor<2x?x8x64xbf16>, %kg: tensor<2x?x8x64xbf16>, %v: tensor<2x?x8x128xbf16>, %beta: tensor<2x?x4xf32>, %M: tensor<2x?x8x64xbf16>, %Aqk: tensor<2x?x8x64xbf16>, %dl: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{operand 'beta' has HV = 4 (dimension 2), but HV of operand 'qg' is 8}}
  %o = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x4xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @chunk_recurrence_o_dtype(%qg: tensor<2x?x8x64xbf16>, %kd: tensor<2x?x8x64xbf16>, %kg: tensor<2x?x8x64xbf16>, %v: tensor<2x?x8x128xbf16>, %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>, %Aqk: tensor<2x?x8x64xbf16>, %dl: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{result 'o' has element type 'f16', but the element type of operand 'v' is 'bf16'}}
  %o = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>) -> tensor<2x?x8x128xf16>
  return
}

// -----

func.func @chunk_recurrence_state_layout(%qg: tensor<2x?x8x64xbf16>, %kd: tensor<2x?x8x64xbf16>, %kg: tensor<2x?x8x64xbf16>, %v: tensor<2x?x8x128xbf16>, %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>, %Aqk: tensor<2x?x8x64xbf16>, %dl: tensor<2x?x8x64xf32>, %h0: tensor<2x8x128x64xf32>) {
  // expected-error @+1 {{operand 'initial_state' has K = 128 (dimension 2), but K of operand 'qg' is 64 (state_layout kv: states are [.., K, V])}}
  %o, %ht = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl initial_state %h0
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x8x128x64xf32>) -> (tensor<2x?x8x128xbf16>, tensor<2x8x64x128xf32>)
  return
}

// -----

func.func @chunk_recurrence_last_gate_keys(%qg: tensor<2x?x8x64xbf16>, %kd: tensor<2x?x8x64xbf16>, %kg: tensor<2x?x8x64xbf16>, %v: tensor<2x?x8x128xbf16>, %beta: tensor<2x?x8xf32>, %M: tensor<2x?x8x64xbf16>, %Aqk: tensor<2x?x8x64xbf16>, %dl: tensor<2x?x8x32xf32>) {
  // expected-error @+1 {{operand 'decay_last' has K = 32 (dimension 3), but K of operand 'qg' is 64}}
  %o = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x32xf32>) -> tensor<2x?x8x128xbf16>
  return
}

// -----

func.func @chunk_recurrence_last_gate_chunks(%qg: tensor<2x100x8x64xbf16>, %kd: tensor<2x100x8x64xbf16>, %kg: tensor<2x100x8x64xbf16>, %v: tensor<2x100x8x128xbf16>, %beta: tensor<2x100x8xf32>, %M: tensor<2x100x8x64xbf16>, %Aqk: tensor<2x100x8x64xbf16>, %dl: tensor<2x3x8x64xf32>) {
  // expected-error @+1 {{operand 'decay_last' has NC = 3 (dimension 1), but ceil(T / chunk_size) = ceil(100 / 64) is 2}}
  %o = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl
      : (tensor<2x100x8x64xbf16>, tensor<2x100x8x64xbf16>, tensor<2x100x8x64xbf16>, tensor<2x100x8x128xbf16>, tensor<2x100x8xf32>, tensor<2x100x8x64xbf16>, tensor<2x100x8x64xbf16>, tensor<2x3x8x64xf32>) -> tensor<2x100x8x128xbf16>
  return
}

// -----

func.func @decay_apply_last_gate_chunks(%q: tensor<2x100x4x64xbf16>, %k: tensor<2x100x4x64xbf16>, %G: tensor<2x100x8x64xf32>) {
  // expected-error @+1 {{result 'decay_last' has NC = 100 (dimension 1), but ceil(T / chunk_size) = ceil(100 / 64) is 2}}
  %qg, %kd, %kg, %dl = kda.decay_apply %q, %k, %G {scale = 0.125 : f32}
      : (tensor<2x100x4x64xbf16>, tensor<2x100x4x64xbf16>, tensor<2x100x8x64xf32>) -> (tensor<2x100x8x64xbf16>, tensor<2x100x8x64xbf16>, tensor<2x100x8x64xbf16>, tensor<2x100x8x64xf32>)
  return
}

// -----

func.func @decay_apply_last_gate_varlen(%q: tensor<1x100x4x64xbf16>, %k: tensor<1x100x4x64xbf16>, %G: tensor<1x100x8x64xf32>, %cu: tensor<4xi64>) {
  // expected-error @+1 {{result 'decay_last' has NC = 4 (dimension 1), but floor(T / chunk_size) + N = floor(100 / 32) + 3 is 6}}
  %qg, %kd, %kg, %dl = kda.decay_apply %q, %k, %G cu_seqlens %cu {chunk_size = 32 : i64, scale = 0.125 : f32}
      : (tensor<1x100x4x64xbf16>, tensor<1x100x4x64xbf16>, tensor<1x100x8x64xf32>, tensor<4xi64>) -> (tensor<1x100x8x64xbf16>, tensor<1x100x8x64xbf16>, tensor<1x100x8x64xbf16>, tensor<1x4x8x64xf32>)
  return
}

// -----

func.func @decay_apply_last_gate_type(%q: tensor<2x?x4x64xbf16>, %k: tensor<2x?x4x64xbf16>, %G: tensor<2x?x8x64xf32>) {
  // expected-error @+1 {{result #3 must be ranked tensor of 32-bit float values}}
  %qg, %kd, %kg, %dl = kda.decay_apply %q, %k, %G {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>) -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>)
  return
}
