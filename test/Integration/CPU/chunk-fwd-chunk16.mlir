// The whole forward with chunks of 16 tokens (one sub-chunk per chunk:
// no off-diagonal blocks, the solve is the inverse of the diagonal block)
// on the CPU build against the float64 per-token recurrence at fla's
// threshold: f16 with gates masked to -1000; K = V = 100 with T = 1, 65
// and 300; grouped value heads with a softplus gate; safe_gate with a
// lower-bound gate; varlen with K = 60, tails, empty and one-token
// sequences; states in layout vk; FlashKDA's flags (l2norm, beta sigmoid,
// safe_gate, varlen, vk); f32 with K != V. Also with the per-chunk kernels
// fused and with the output inside the state scan.

// RUN: split-file %s %t
// RUN: kda-translate %t/c16_f16_mask.mlir --kda-to-bundle --no-cubin -o %t/c16_f16_mask.kdab
// RUN: kda-translate %t/c16_k100_f16.mlir --kda-to-bundle --no-cubin -o %t/c16_k100_f16.kdab
// RUN: kda-translate %t/c16_gva_bf16_softplus.mlir --kda-to-bundle --no-cubin -o %t/c16_gva_bf16_softplus.kdab
// RUN: kda-translate %t/c16_safe_lb.mlir --kda-to-bundle --no-cubin -o %t/c16_safe_lb.kdab
// RUN: kda-translate %t/c16_v_k60_mask.mlir --kda-to-bundle --no-cubin -o %t/c16_v_k60_mask.kdab
// RUN: kda-translate %t/c16_vk_k60.mlir --kda-to-bundle --no-cubin -o %t/c16_vk_k60.kdab
// RUN: kda-translate %t/c16_flashkda_flags.mlir --kda-to-bundle --no-cubin -o %t/c16_flashkda_flags.kdab
// RUN: kda-translate %t/c16_kv_ne_f32.mlir --kda-to-bundle --no-cubin -o %t/c16_kv_ne_f32.kdab
// RUN: kda-translate %t/c16_v_k60_mask.mlir --kda-to-bundle --no-cubin --fuse-chunk-kernels -o %t/c16_v_k60_mask_fused.kdab
// RUN: kda-translate %t/c16_f16_mask.mlir --kda-to-bundle --no-cubin --fuse-chunk-kernels --fuse-scan-output -o %t/c16_f16_mask_fused.kdab
// RUN: kda-run %t/c16_f16_mask.kdab --cpu --batch 2 --seq-len 1000 --heads 3 --value-heads 3 --mask-p 0.5 --check-heads 3 | FileCheck %s
// RUN: kda-run %t/c16_k100_f16.kdab --cpu --batch 3 --seq-len 300 --heads 4 --value-heads 4 --gate-norm 0.1 --check-heads 4 | FileCheck %s
// RUN: kda-run %t/c16_k100_f16.kdab --cpu --batch 1 --seq-len 65 --heads 4 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/c16_k100_f16.kdab --cpu --batch 2 --seq-len 1 --heads 4 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/c16_gva_bf16_softplus.kdab --cpu --batch 2 --seq-len 130 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/c16_safe_lb.kdab --cpu --batch 2 --seq-len 160 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/c16_v_k60_mask.kdab --cpu --batch 1 --seq-len 160 --heads 4 --value-heads 4 --cu-seqlens 0,31,96,160 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/c16_v_k60_mask.kdab --cpu --batch 1 --seq-len 300 --heads 4 --value-heads 4 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s
// RUN: kda-run %t/c16_vk_k60.kdab --cpu --batch 2 --seq-len 500 --heads 3 --value-heads 3 | FileCheck %s
// RUN: kda-run %t/c16_flashkda_flags.kdab --cpu --batch 1 --seq-len 1000 --heads 4 --value-heads 4 --cu-seqlens 0,256,500,1000 --check-heads 6 | FileCheck %s
// RUN: kda-run %t/c16_kv_ne_f32.kdab --cpu --batch 1 --seq-len 129 --heads 1 --value-heads 2 | FileCheck %s
// RUN: kda-run %t/c16_v_k60_mask_fused.kdab --cpu --batch 1 --seq-len 300 --heads 4 --value-heads 4 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s
// RUN: kda-run %t/c16_f16_mask_fused.kdab --cpu --batch 2 --seq-len 1000 --heads 3 --value-heads 3 --mask-p 0.5 --check-heads 3 | FileCheck %s
// RUN: not kda-run %t/c16_kv_ne_f32.kdab --cpu --batch 1 --seq-len 63 --heads 1 --value-heads 2 --inject-error | FileCheck %s --check-prefix=BAD

// CHECK: (program=chunk_fwd) on the CPU build
// CHECK: chunk=16
// CHECK-NOT: FAIL
// CHECK: PASS
// BAD: FAIL {{.*}}(o: rms_ratio above

//--- c16_f16_mask.mlir
func.func @c16_f16_mask(%q: tensor<?x?x3x64xf16>, %k: tensor<?x?x3x64xf16>, %v: tensor<?x?x3x64xf16>, %g: tensor<?x?x3x64xf32>, %beta: tensor<?x?x3xf32>, %h0: tensor<?x3x64x64xf32>)
    -> (tensor<?x?x3x64xf16>, tensor<?x3x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 {chunk_size = 16 : i64, scale = 0.1 : f32}
      : (tensor<?x?x3x64xf16>, tensor<?x?x3x64xf16>, tensor<?x?x3x64xf16>, tensor<?x?x3x64xf32>, tensor<?x?x3xf32>, tensor<?x3x64x64xf32>)
      -> (tensor<?x?x3x64xf16>, tensor<?x3x64x64xf32>)
  return %o, %ht : tensor<?x?x3x64xf16>, tensor<?x3x64x64xf32>
}

//--- c16_k100_f16.mlir
func.func @c16_k100_f16(%q: tensor<?x?x4x100xf16>, %k: tensor<?x?x4x100xf16>, %v: tensor<?x?x4x100xf16>, %g: tensor<?x?x4x100xf32>, %beta: tensor<?x?x4xf32>)
    -> (tensor<?x?x4x100xf16>, tensor<?x4x100x100xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta {chunk_size = 16 : i64}
      : (tensor<?x?x4x100xf16>, tensor<?x?x4x100xf16>, tensor<?x?x4x100xf16>, tensor<?x?x4x100xf32>, tensor<?x?x4xf32>)
      -> (tensor<?x?x4x100xf16>, tensor<?x4x100x100xf32>)
  return %o, %ht : tensor<?x?x4x100xf16>, tensor<?x4x100x100xf32>
}

//--- c16_gva_bf16_softplus.mlir
func.func @c16_gva_bf16_softplus(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x8x64xbf16>, %g: tensor<?x?x8x64xf32>, %beta: tensor<?x?x8xf32>, %A: tensor<8xf32>, %dt: tensor<8x64xf32>)
    -> (tensor<?x?x8x64xbf16>, tensor<?x8x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %A dt_bias %dt {chunk_size = 16 : i64, scale = 0.1 : f32, gate_mode = #kda<gate_mode softplus>}
      : (tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x8x64xbf16>, tensor<?x?x8x64xf32>, tensor<?x?x8xf32>, tensor<8xf32>, tensor<8x64xf32>)
      -> (tensor<?x?x8x64xbf16>, tensor<?x8x64x64xf32>)
  return %o, %ht : tensor<?x?x8x64xbf16>, tensor<?x8x64x64xf32>
}

//--- c16_safe_lb.mlir
func.func @c16_safe_lb(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x4x64xbf16>, %g: tensor<?x?x4x64xbf16>, %beta: tensor<?x?x4xf32>, %A: tensor<4xf32>, %dt: tensor<4x64xf32>, %h0: tensor<?x4x64x64xf32>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x4x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %A dt_bias %dt initial_state %h0 {scale = 0.1 : f32, chunk_size = 16 : i64, safe_gate, gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32}
      : (tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4xf32>, tensor<4xf32>, tensor<4x64xf32>, tensor<?x4x64x64xf32>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x4x64x64xf32>)
  return %o, %ht : tensor<?x?x4x64xbf16>, tensor<?x4x64x64xf32>
}

//--- c16_v_k60_mask.mlir
func.func @c16_v_k60_mask(%q: tensor<1x?x4x60xf16>, %k: tensor<1x?x4x60xf16>, %v: tensor<1x?x4x60xf16>, %g: tensor<1x?x4x60xf32>, %beta: tensor<1x?x4xf32>, %h0: tensor<?x4x60x60xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x4x60xf16>, tensor<?x4x60x60xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 cu_seqlens %cu {chunk_size = 16 : i64}
      : (tensor<1x?x4x60xf16>, tensor<1x?x4x60xf16>, tensor<1x?x4x60xf16>, tensor<1x?x4x60xf32>, tensor<1x?x4xf32>, tensor<?x4x60x60xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x60xf16>, tensor<?x4x60x60xf32>)
  return %o, %ht : tensor<1x?x4x60xf16>, tensor<?x4x60x60xf32>
}

//--- c16_vk_k60.mlir
func.func @c16_vk_k60(%q: tensor<?x?x3x60xf16>, %k: tensor<?x?x3x60xf16>, %v: tensor<?x?x3x60xf16>, %g: tensor<?x?x3x60xf32>, %beta: tensor<?x?x3xf32>, %h0: tensor<?x3x60x60xf32>)
    -> (tensor<?x?x3x60xf16>, tensor<?x3x60x60xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 {chunk_size = 16 : i64, scale = 1.0 : f32, state_layout = #kda<state_layout vk>}
      : (tensor<?x?x3x60xf16>, tensor<?x?x3x60xf16>, tensor<?x?x3x60xf16>, tensor<?x?x3x60xf32>, tensor<?x?x3xf32>, tensor<?x3x60x60xf32>)
      -> (tensor<?x?x3x60xf16>, tensor<?x3x60x60xf32>)
  return %o, %ht : tensor<?x?x3x60xf16>, tensor<?x3x60x60xf32>
}

//--- c16_flashkda_flags.mlir
func.func @c16_flashkda_flags(%q: tensor<1x?x4x128xbf16>, %k: tensor<1x?x4x128xbf16>, %v: tensor<1x?x4x128xbf16>, %g: tensor<1x?x4x128xbf16>, %beta: tensor<1x?x4xbf16>, %A: tensor<4xf32>, %dt: tensor<4x128xf32>, %h0: tensor<?x4x128x128xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x4x128xbf16>, tensor<?x4x128x128xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %A dt_bias %dt initial_state %h0 cu_seqlens %cu {chunk_size = 16 : i64, use_qk_l2norm, use_beta_sigmoid, safe_gate, gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4xbf16>, tensor<4xf32>, tensor<4x128xf32>, tensor<?x4x128x128xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x128xbf16>, tensor<?x4x128x128xf32>)
  return %o, %ht : tensor<1x?x4x128xbf16>, tensor<?x4x128x128xf32>
}

//--- c16_kv_ne_f32.mlir
func.func @c16_kv_ne_f32(%q: tensor<?x?x1x64xf32>, %k: tensor<?x?x1x64xf32>, %v: tensor<?x?x2x100xf32>, %g: tensor<?x?x2x64xf32>, %beta: tensor<?x?x2xf32>, %h0: tensor<?x2x64x100xf32>)
    -> (tensor<?x?x2x100xf32>, tensor<?x2x64x100xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 {chunk_size = 16 : i64}
      : (tensor<?x?x1x64xf32>, tensor<?x?x1x64xf32>, tensor<?x?x2x100xf32>, tensor<?x?x2x64xf32>, tensor<?x?x2xf32>, tensor<?x2x64x100xf32>)
      -> (tensor<?x?x2x100xf32>, tensor<?x2x64x100xf32>)
  return %o, %ht : tensor<?x?x2x100xf32>, tensor<?x2x64x100xf32>
}
