// The whole forward (kda.chunk_fwd) on the CPU build against the float64
// per-token recurrence, for o and the final state, at fla's threshold (RMS ratio
// 0.005). The cases follow fla's test_chunk, test_chunk_varlen,
// test_chunk_state_v_first, test_chunk_use_beta_sigmoid_in_kernel and FlashKDA
// grids (kda-algorithm.md section 3) with T shortened for the CPU: T = 1, 63,
// 65, 96, 100, 129, 130, 160, 200, 300, 500 and 1000; K = V = 60, 64, 100,
// 128, 256 and K != V (V = 32 and 100); grouped value heads; chunk 32 and 64;
// f16, bf16 and f32; precomputed gates (gate_norm 0.1, masked to -1000),
// softplus and lower-bound gates in the kernel; safe_gate; l2norm and beta
// sigmoid in the kernel, allow_neg_eigval; kv and vk states with initial and
// final state; varlen with tails, empty and one-token sequences; and an
// injected error that the check catches.

// RUN: split-file %s %t
// RUN: kda-translate %t/t1_f16_safe.mlir --kda-to-bundle --no-cubin -o %t/t1_f16_safe.kdab
// RUN: kda-translate %t/t2_k60_f16_safe.mlir --kda-to-bundle --no-cubin -o %t/t2_k60_f16_safe.kdab
// RUN: kda-translate %t/t3_f16_mask.mlir --kda-to-bundle --no-cubin -o %t/t3_f16_mask.kdab
// RUN: kda-translate %t/t4_k100_f16.mlir --kda-to-bundle --no-cubin -o %t/t4_k100_f16.kdab
// RUN: kda-translate %t/t6_l2norm_softplus_bf16.mlir --kda-to-bundle --no-cubin -o %t/t6_l2norm_softplus_bf16.kdab
// RUN: kda-translate %t/t10_gva_bf16_softplus.mlir --kda-to-bundle --no-cubin -o %t/t10_gva_bf16_softplus.kdab
// RUN: kda-translate %t/t12_chunk32_safe_lb.mlir --kda-to-bundle --no-cubin -o %t/t12_chunk32_safe_lb.kdab
// RUN: kda-translate %t/v_k100_f16_softplus.mlir --kda-to-bundle --no-cubin -o %t/v_k100_f16_softplus.kdab
// RUN: kda-translate %t/v_k60_chunk32_mask.mlir --kda-to-bundle --no-cubin -o %t/v_k60_chunk32_mask.kdab
// RUN: kda-translate %t/s_vk_k60.mlir --kda-to-bundle --no-cubin -o %t/s_vk_k60.kdab
// RUN: kda-translate %t/b_sigmoid_neg.mlir --kda-to-bundle --no-cubin -o %t/b_sigmoid_neg.kdab
// RUN: kda-translate %t/flashkda_flags.mlir --kda-to-bundle --no-cubin -o %t/flashkda_flags.kdab
// RUN: kda-translate %t/kv_ne_f32.mlir --kda-to-bundle --no-cubin -o %t/kv_ne_f32.kdab
// RUN: kda-translate %t/v32_f32_states.mlir --kda-to-bundle --no-cubin -o %t/v32_f32_states.kdab
// RUN: kda-run %t/t1_f16_safe.kdab --cpu --batch 1 --seq-len 63 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/t2_k60_f16_safe.kdab --cpu --batch 2 --seq-len 500 --heads 3 --value-heads 3 | FileCheck %s
// RUN: kda-run %t/t3_f16_mask.kdab --cpu --batch 2 --seq-len 1000 --heads 3 --value-heads 3 --mask-p 0.5 --check-heads 3 | FileCheck %s
// RUN: kda-run %t/t4_k100_f16.kdab --cpu --batch 3 --seq-len 300 --heads 4 --value-heads 4 --gate-norm 0.1 --check-heads 4 | FileCheck %s
// RUN: kda-run %t/t4_k100_f16.kdab --cpu --batch 1 --seq-len 65 --heads 4 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/t4_k100_f16.kdab --cpu --batch 2 --seq-len 1 --heads 4 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/t6_l2norm_softplus_bf16.kdab --cpu --batch 2 --seq-len 200 --heads 2 --value-heads 2 | FileCheck %s
// RUN: kda-run %t/t10_gva_bf16_softplus.kdab --cpu --batch 2 --seq-len 130 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/t12_chunk32_safe_lb.kdab --cpu --batch 2 --seq-len 160 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/v_k100_f16_softplus.kdab --cpu --batch 1 --seq-len 2000 --heads 4 --value-heads 4 --cu-seqlens 0,15,100,300,1200,2000 --check-heads 8 | FileCheck %s
// RUN: kda-run %t/v_k60_chunk32_mask.kdab --cpu --batch 1 --seq-len 160 --heads 4 --value-heads 4 --cu-seqlens 0,31,96,160 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/v_k60_chunk32_mask.kdab --cpu --batch 1 --seq-len 300 --heads 4 --value-heads 4 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s
// RUN: kda-run %t/s_vk_k60.kdab --cpu --batch 2 --seq-len 500 --heads 3 --value-heads 3 | FileCheck %s
// RUN: kda-run %t/b_sigmoid_neg.kdab --cpu --batch 2 --seq-len 96 --heads 2 --value-heads 2 | FileCheck %s
// RUN: kda-run %t/flashkda_flags.kdab --cpu --batch 1 --seq-len 1000 --heads 4 --value-heads 4 --cu-seqlens 0,256,500,1000 --check-heads 6 | FileCheck %s
// Other columns of V per program (the tuning's block_v): the chunk
// recurrence at 64 (V = 100: a full tile and a masked one) and 16
// (varlen), the state scan at 16 (K = 60, vk states).
// RUN: kda-translate %t/t4_k100_f16.mlir --kda-to-bundle --no-cubin --tuning-override chunk_recurrence.block_v=64 -o %t/t4_k100_f16_bv64.kdab
// RUN: kda-run %t/t4_k100_f16_bv64.kdab --cpu --batch 3 --seq-len 300 --heads 4 --value-heads 4 --gate-norm 0.1 --check-heads 4 | FileCheck %s
// RUN: kda-translate %t/flashkda_flags.mlir --kda-to-bundle --no-cubin --tuning-override chunk_recurrence.block_v=16 -o %t/flashkda_flags_bv16.kdab
// RUN: kda-run %t/flashkda_flags_bv16.kdab --cpu --batch 1 --seq-len 1000 --heads 4 --value-heads 4 --cu-seqlens 0,256,500,1000 --check-heads 6 | FileCheck %s
// RUN: kda-translate %t/s_vk_k60.mlir --kda-to-bundle --no-cubin --tuning-override state_scan.block_v=16,state_scan_fused.block_v=16 -o %t/s_vk_k60_bv16.kdab
// RUN: kda-run %t/s_vk_k60_bv16.kdab --cpu --batch 2 --seq-len 500 --heads 3 --value-heads 3 | FileCheck %s
// RUN: kda-run %t/kv_ne_f32.kdab --cpu --batch 1 --seq-len 129 --heads 1 --value-heads 2 | FileCheck %s
// RUN: kda-run %t/v32_f32_states.kdab --cpu --batch 2 --seq-len 100 --heads 2 --value-heads 2 | FileCheck %s
// RUN: kda-translate %t/v_k256_f16_safe.mlir --kda-to-bundle --no-cubin -o %t/v_k256_f16_safe.kdab
// RUN: kda-run %t/v_k256_f16_safe.kdab --cpu --batch 1 --seq-len 700 --heads 2 --value-heads 2 --cu-seqlens 0,100,300,700 | FileCheck %s
// gates at -1000, steep gates, varlen with empty and one-token sequences.
// The exact diagonal blocks factored where the gate drop allows
// (--exact-diagonal-factoring): mild, steep and -1000 gates, varlen.
// RUN: kda-translate %t/t3_f16_mask.mlir --kda-to-bundle --no-cubin --exact-diagonal-factoring -o %t/f3_f16_mask.kdab
// RUN: kda-translate %t/t4_k100_f16.mlir --kda-to-bundle --no-cubin --exact-diagonal-factoring -o %t/f4_k100_f16.kdab
// RUN: kda-translate %t/v_k60_chunk32_mask.mlir --kda-to-bundle --no-cubin --exact-diagonal-factoring -o %t/fv_k60_chunk32_mask.kdab
// RUN: kda-run %t/f3_f16_mask.kdab --cpu --batch 2 --seq-len 1000 --heads 3 --value-heads 3 --check-heads 3 | FileCheck %s
// RUN: kda-run %t/f3_f16_mask.kdab --cpu --batch 2 --seq-len 1000 --heads 3 --value-heads 3 --mask-p 0.5 --check-heads 3 | FileCheck %s
// RUN: kda-run %t/f4_k100_f16.kdab --cpu --batch 3 --seq-len 300 --heads 4 --value-heads 4 --gate-norm 0.1 --check-heads 4 | FileCheck %s
// RUN: kda-run %t/fv_k60_chunk32_mask.kdab --cpu --batch 1 --seq-len 300 --heads 4 --value-heads 4 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s
// RUN: kda-run %t/fv_k60_chunk32_mask.kdab --cpu --batch 1 --seq-len 300 --heads 4 --value-heads 4 --cu-seqlens 0,0,1,1,64,65,130,300 --mask-p 0.1 | FileCheck %s
// The exact diagonal decays by key rows (--exact-diagonal-rows) on the
// staged form's intra_diag, in halves of 8 rows alone and over whole blocks
// as the factored path's fallback: -1000 and steep gates, varlen.
// RUN: kda-translate %t/t3_f16_mask.mlir --kda-to-bundle --no-cubin --exact-diagonal-rows -o %t/r3_f16_mask.kdab
// RUN: kda-translate %t/v_k60_chunk32_mask.mlir --kda-to-bundle --no-cubin --exact-diagonal-rows -o %t/rv_k60_chunk32_mask.kdab
// RUN: kda-translate %t/t4_k100_f16.mlir --kda-to-bundle --no-cubin --exact-diagonal-rows --exact-diagonal-factoring -o %t/rf4_k100_f16.kdab
// RUN: kda-run %t/r3_f16_mask.kdab --cpu --batch 2 --seq-len 1000 --heads 3 --value-heads 3 --mask-p 0.5 --check-heads 3 | FileCheck %s
// RUN: kda-run %t/rv_k60_chunk32_mask.kdab --cpu --batch 1 --seq-len 300 --heads 4 --value-heads 4 --cu-seqlens 0,0,1,1,64,65,130,300 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/rf4_k100_f16.kdab --cpu --batch 3 --seq-len 300 --heads 4 --value-heads 4 --gate-norm 0.1 --check-heads 4 | FileCheck %s
// RUN: kda-run %t/rf4_k100_f16.kdab --cpu --batch 3 --seq-len 300 --heads 4 --value-heads 4 --mask-p 0.5 --check-heads 4 | FileCheck %s
// The default form's fused per-chunk kernel (key rows in halves) with
// empty and one-token sequences.
// RUN: kda-run %t/v_k100_f16_softplus.kdab --cpu --batch 1 --seq-len 300 --heads 4 --value-heads 4 --cu-seqlens 0,0,1,1,15,100,300 | FileCheck %s
// RUN: kda-translate %t/kv_ne_f32.mlir --kda-to-bundle --no-cubin --exact-diagonal-factoring -o %t/f_kv_ne_f32.kdab
// RUN: kda-run %t/f_kv_ne_f32.kdab --cpu --batch 1 --seq-len 129 --heads 1 --value-heads 2 | FileCheck %s
// RUN: not kda-run %t/t1_f16_safe.kdab --cpu --batch 1 --seq-len 63 --heads 1 --value-heads 1 --inject-error | FileCheck %s --check-prefix=BAD

// CHECK: (program=chunk_fwd) on the CPU build
// CHECK-NOT: FAIL
// CHECK: PASS
// BAD: FAIL {{.*}}(o: rms_ratio above

//--- t1_f16_safe.mlir
func.func @t1_f16_safe(%q: tensor<1x?x1x64xf16>, %k: tensor<1x?x1x64xf16>, %v: tensor<1x?x1x64xf16>, %g: tensor<1x?x1x64xf32>, %beta: tensor<1x?x1xf32>)
    -> (tensor<1x?x1x64xf16>, tensor<1x1x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta {scale = 1.0 : f32, safe_gate}
      : (tensor<1x?x1x64xf16>, tensor<1x?x1x64xf16>, tensor<1x?x1x64xf16>, tensor<1x?x1x64xf32>, tensor<1x?x1xf32>)
      -> (tensor<1x?x1x64xf16>, tensor<1x1x64x64xf32>)
  return %o, %ht : tensor<1x?x1x64xf16>, tensor<1x1x64x64xf32>
}

//--- t2_k60_f16_safe.mlir
func.func @t2_k60_f16_safe(%q: tensor<?x?x3x60xf16>, %k: tensor<?x?x3x60xf16>, %v: tensor<?x?x3x60xf16>, %g: tensor<?x?x3x60xf32>, %beta: tensor<?x?x3xf32>, %h0: tensor<?x3x60x60xf32>)
    -> (tensor<?x?x3x60xf16>, tensor<?x3x60x60xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 {scale = 1.0 : f32, safe_gate}
      : (tensor<?x?x3x60xf16>, tensor<?x?x3x60xf16>, tensor<?x?x3x60xf16>, tensor<?x?x3x60xf32>, tensor<?x?x3xf32>, tensor<?x3x60x60xf32>)
      -> (tensor<?x?x3x60xf16>, tensor<?x3x60x60xf32>)
  return %o, %ht : tensor<?x?x3x60xf16>, tensor<?x3x60x60xf32>
}

//--- t3_f16_mask.mlir
func.func @t3_f16_mask(%q: tensor<?x?x3x64xf16>, %k: tensor<?x?x3x64xf16>, %v: tensor<?x?x3x64xf16>, %g: tensor<?x?x3x64xf32>, %beta: tensor<?x?x3xf32>, %h0: tensor<?x3x64x64xf32>)
    -> (tensor<?x?x3x64xf16>, tensor<?x3x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 {scale = 0.1 : f32}
      : (tensor<?x?x3x64xf16>, tensor<?x?x3x64xf16>, tensor<?x?x3x64xf16>, tensor<?x?x3x64xf32>, tensor<?x?x3xf32>, tensor<?x3x64x64xf32>)
      -> (tensor<?x?x3x64xf16>, tensor<?x3x64x64xf32>)
  return %o, %ht : tensor<?x?x3x64xf16>, tensor<?x3x64x64xf32>
}

//--- t4_k100_f16.mlir
func.func @t4_k100_f16(%q: tensor<?x?x4x100xf16>, %k: tensor<?x?x4x100xf16>, %v: tensor<?x?x4x100xf16>, %g: tensor<?x?x4x100xf32>, %beta: tensor<?x?x4xf32>)
    -> (tensor<?x?x4x100xf16>, tensor<?x4x100x100xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<?x?x4x100xf16>, tensor<?x?x4x100xf16>, tensor<?x?x4x100xf16>, tensor<?x?x4x100xf32>, tensor<?x?x4xf32>)
      -> (tensor<?x?x4x100xf16>, tensor<?x4x100x100xf32>)
  return %o, %ht : tensor<?x?x4x100xf16>, tensor<?x4x100x100xf32>
}

//--- t6_l2norm_softplus_bf16.mlir
func.func @t6_l2norm_softplus_bf16(%q: tensor<?x?x2x128xbf16>, %k: tensor<?x?x2x128xbf16>, %v: tensor<?x?x2x128xbf16>, %g: tensor<?x?x2x128xbf16>, %beta: tensor<?x?x2xf32>, %A: tensor<2xf32>, %dt: tensor<2x128xf32>, %h0: tensor<?x2x128x128xf32>)
    -> (tensor<?x?x2x128xbf16>, tensor<?x2x128x128xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %A dt_bias %dt initial_state %h0 {scale = 0.1 : f32, use_qk_l2norm, gate_mode = #kda<gate_mode softplus>}
      : (tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2xf32>, tensor<2xf32>, tensor<2x128xf32>, tensor<?x2x128x128xf32>)
      -> (tensor<?x?x2x128xbf16>, tensor<?x2x128x128xf32>)
  return %o, %ht : tensor<?x?x2x128xbf16>, tensor<?x2x128x128xf32>
}

//--- t10_gva_bf16_softplus.mlir
func.func @t10_gva_bf16_softplus(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x8x64xbf16>, %g: tensor<?x?x8x64xf32>, %beta: tensor<?x?x8xf32>, %A: tensor<8xf32>, %dt: tensor<8x64xf32>)
    -> (tensor<?x?x8x64xbf16>, tensor<?x8x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %A dt_bias %dt {scale = 0.1 : f32, gate_mode = #kda<gate_mode softplus>}
      : (tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x8x64xbf16>, tensor<?x?x8x64xf32>, tensor<?x?x8xf32>, tensor<8xf32>, tensor<8x64xf32>)
      -> (tensor<?x?x8x64xbf16>, tensor<?x8x64x64xf32>)
  return %o, %ht : tensor<?x?x8x64xbf16>, tensor<?x8x64x64xf32>
}

//--- t12_chunk32_safe_lb.mlir
func.func @t12_chunk32_safe_lb(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x4x64xbf16>, %g: tensor<?x?x4x64xbf16>, %beta: tensor<?x?x4xf32>, %A: tensor<4xf32>, %dt: tensor<4x64xf32>, %h0: tensor<?x4x64x64xf32>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x4x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %A dt_bias %dt initial_state %h0 {scale = 0.1 : f32, chunk_size = 32 : i64, safe_gate, gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32}
      : (tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4xf32>, tensor<4xf32>, tensor<4x64xf32>, tensor<?x4x64x64xf32>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x4x64x64xf32>)
  return %o, %ht : tensor<?x?x4x64xbf16>, tensor<?x4x64x64xf32>
}

//--- v_k100_f16_softplus.mlir
func.func @v_k100_f16_softplus(%q: tensor<1x?x4x100xf16>, %k: tensor<1x?x4x100xf16>, %v: tensor<1x?x4x100xf16>, %g: tensor<1x?x4x100xf32>, %beta: tensor<1x?x4xf32>, %A: tensor<4xf32>, %dt: tensor<4x100xf32>, %h0: tensor<?x4x100x100xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x4x100xf16>, tensor<?x4x100x100xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %A dt_bias %dt initial_state %h0 cu_seqlens %cu {gate_mode = #kda<gate_mode softplus>}
      : (tensor<1x?x4x100xf16>, tensor<1x?x4x100xf16>, tensor<1x?x4x100xf16>, tensor<1x?x4x100xf32>, tensor<1x?x4xf32>, tensor<4xf32>, tensor<4x100xf32>, tensor<?x4x100x100xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x100xf16>, tensor<?x4x100x100xf32>)
  return %o, %ht : tensor<1x?x4x100xf16>, tensor<?x4x100x100xf32>
}

//--- v_k60_chunk32_mask.mlir
func.func @v_k60_chunk32_mask(%q: tensor<1x?x4x60xf16>, %k: tensor<1x?x4x60xf16>, %v: tensor<1x?x4x60xf16>, %g: tensor<1x?x4x60xf32>, %beta: tensor<1x?x4xf32>, %h0: tensor<?x4x60x60xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x4x60xf16>, tensor<?x4x60x60xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 cu_seqlens %cu {chunk_size = 32 : i64}
      : (tensor<1x?x4x60xf16>, tensor<1x?x4x60xf16>, tensor<1x?x4x60xf16>, tensor<1x?x4x60xf32>, tensor<1x?x4xf32>, tensor<?x4x60x60xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x60xf16>, tensor<?x4x60x60xf32>)
  return %o, %ht : tensor<1x?x4x60xf16>, tensor<?x4x60x60xf32>
}

//--- s_vk_k60.mlir
func.func @s_vk_k60(%q: tensor<?x?x3x60xf16>, %k: tensor<?x?x3x60xf16>, %v: tensor<?x?x3x60xf16>, %g: tensor<?x?x3x60xf32>, %beta: tensor<?x?x3xf32>, %h0: tensor<?x3x60x60xf32>)
    -> (tensor<?x?x3x60xf16>, tensor<?x3x60x60xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 {scale = 1.0 : f32, state_layout = #kda<state_layout vk>}
      : (tensor<?x?x3x60xf16>, tensor<?x?x3x60xf16>, tensor<?x?x3x60xf16>, tensor<?x?x3x60xf32>, tensor<?x?x3xf32>, tensor<?x3x60x60xf32>)
      -> (tensor<?x?x3x60xf16>, tensor<?x3x60x60xf32>)
  return %o, %ht : tensor<?x?x3x60xf16>, tensor<?x3x60x60xf32>
}

//--- b_sigmoid_neg.mlir
func.func @b_sigmoid_neg(%q: tensor<?x?x2x64xf16>, %k: tensor<?x?x2x64xf16>, %v: tensor<?x?x2x64xf16>, %g: tensor<?x?x2x64xf32>, %beta: tensor<?x?x2xf16>, %h0: tensor<?x2x64x64xf32>)
    -> (tensor<?x?x2x64xf16>, tensor<?x2x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 {use_beta_sigmoid, allow_neg_eigval}
      : (tensor<?x?x2x64xf16>, tensor<?x?x2x64xf16>, tensor<?x?x2x64xf16>, tensor<?x?x2x64xf32>, tensor<?x?x2xf16>, tensor<?x2x64x64xf32>)
      -> (tensor<?x?x2x64xf16>, tensor<?x2x64x64xf32>)
  return %o, %ht : tensor<?x?x2x64xf16>, tensor<?x2x64x64xf32>
}

//--- flashkda_flags.mlir
func.func @flashkda_flags(%q: tensor<1x?x4x128xbf16>, %k: tensor<1x?x4x128xbf16>, %v: tensor<1x?x4x128xbf16>, %g: tensor<1x?x4x128xbf16>, %beta: tensor<1x?x4xbf16>, %A: tensor<4xf32>, %dt: tensor<4x128xf32>, %h0: tensor<?x4x128x128xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x4x128xbf16>, tensor<?x4x128x128xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %A dt_bias %dt initial_state %h0 cu_seqlens %cu {use_qk_l2norm, use_beta_sigmoid, safe_gate, gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4xbf16>, tensor<4xf32>, tensor<4x128xf32>, tensor<?x4x128x128xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x128xbf16>, tensor<?x4x128x128xf32>)
  return %o, %ht : tensor<1x?x4x128xbf16>, tensor<?x4x128x128xf32>
}

//--- kv_ne_f32.mlir
func.func @kv_ne_f32(%q: tensor<?x?x1x64xf32>, %k: tensor<?x?x1x64xf32>, %v: tensor<?x?x2x100xf32>, %g: tensor<?x?x2x64xf32>, %beta: tensor<?x?x2xf32>, %h0: tensor<?x2x64x100xf32>)
    -> (tensor<?x?x2x100xf32>, tensor<?x2x64x100xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0
      : (tensor<?x?x1x64xf32>, tensor<?x?x1x64xf32>, tensor<?x?x2x100xf32>, tensor<?x?x2x64xf32>, tensor<?x?x2xf32>, tensor<?x2x64x100xf32>)
      -> (tensor<?x?x2x100xf32>, tensor<?x2x64x100xf32>)
  return %o, %ht : tensor<?x?x2x100xf32>, tensor<?x2x64x100xf32>
}
//--- v32_f32_states.mlir
// V = 32 is one V tile of the state scan and K = 64 one K tile: the initial
// state's tiles are whole static views (the GPU build once failed here).
func.func @v32_f32_states(%q: tensor<?x?x2x64xf32>, %k: tensor<?x?x2x64xf32>, %v: tensor<?x?x2x32xf32>, %g: tensor<?x?x2x64xf32>, %beta: tensor<?x?x2xf32>, %h0: tensor<?x2x64x32xf32>)
    -> (tensor<?x?x2x32xf32>, tensor<?x2x64x32xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0
      : (tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>, tensor<?x?x2x32xf32>, tensor<?x?x2x64xf32>, tensor<?x?x2xf32>, tensor<?x2x64x32xf32>)
      -> (tensor<?x?x2x32xf32>, tensor<?x2x64x32xf32>)
  return %o, %ht : tensor<?x?x2x32xf32>, tensor<?x2x64x32xf32>
}
//--- v_k256_f16_safe.mlir
func.func @v_k256_f16_safe(%q: tensor<1x?x2x256xf16>, %k: tensor<1x?x2x256xf16>, %v: tensor<1x?x2x256xf16>, %g: tensor<1x?x2x256xf32>, %beta: tensor<1x?x2xf32>, %h0: tensor<?x2x256x256xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x2x256xf16>, tensor<?x2x256x256xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 cu_seqlens %cu {safe_gate}
      : (tensor<1x?x2x256xf16>, tensor<1x?x2x256xf16>, tensor<1x?x2x256xf16>, tensor<1x?x2x256xf32>, tensor<1x?x2xf32>, tensor<?x2x256x256xf32>, tensor<?xi64>)
      -> (tensor<1x?x2x256xf16>, tensor<?x2x256x256xf32>)
  return %o, %ht : tensor<1x?x2x256xf16>, tensor<?x2x256x256xf32>
}
