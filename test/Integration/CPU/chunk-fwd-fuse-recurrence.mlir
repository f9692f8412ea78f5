// The whole forward in the recurrent form (kda-translate --fuse-recurrence:
// kda.decay_apply, then kda.chunk_recurrence, which applies the solve M to
// each chunk's values itself; no w, u, h or v_new in memory) on the CPU
// build, against the float64 per-token recurrence at fla's threshold: bf16
// with grouped value heads and T not a multiple of the chunk; f16 varlen
// with empty and one-token sequences, K = 100 != V = 60, chunk 32, initial
// and final state in layout vk; f32 with K = 128 != V = 64 and states in
// layout kv; K = V = 256 (four state tiles) with safe_gate, varlen and
// states; K = V = 128 bf16 with gates masked to -1000; beta sigmoid with
// allow_neg_eigval; a softplus gate in the kernel with grouped value heads
// and the scale 0.1; FlashKDA's flags (in-kernel gate, l2norm and beta
// sigmoid, safe_gate, varlen, vk) with the prepare stages as one kernel
// (--fuse-chunk-kernels: two kernels in all), at chunks of 64 and 16; after
// kda-fuse-scan-output; and with the chunk size set at compile time
// (--chunk-size: 16 for a program written with 64, 64 for one with 32).
// With --fuse-chunk-kernels, G and Akkd live in each program's own buffer
// (kda-privatize-chunk-buffers); the varlen f16 vk, f32 kv and K = 256
// cases run that way too. With --fuse-preprocessing, l2norm and the beta
// sigmoid join that kernel on the gate's chunk programs, q_norm and k_norm
// in the program's buffers: FlashKDA's flags, and f16 varlen with grouped
// value heads (each value head of a group normalizes its q/k rows itself),
// empty and one-token sequences, allow_neg_eigval and states, at chunks of
// 64 and 16 (and once without it). With the recurrence's state transposed
// (chunk_recurrence.transpose_state, [block_v, K] tiles): the varlen f16 vk,
// f32 kv, K = 256 and FlashKDA chunk-16 cases again. FlashKDA's flags with
// the gate's and beta's sigmoids approximate (--approximate-sigmoid).

// RUN: split-file %s %t
// RUN: kda-translate %t/gva_bf16.mlir --kda-to-bundle --no-cubin --fuse-recurrence -o %t/gva_bf16.kdab
// RUN: kda-translate %t/varlen_f16_vk.mlir --kda-to-bundle --no-cubin --fuse-recurrence -o %t/varlen_f16_vk.kdab
// RUN: kda-translate %t/f32_kv.mlir --kda-to-bundle --no-cubin --fuse-recurrence -o %t/f32_kv.kdab
// RUN: kda-translate %t/k256_safe.mlir --kda-to-bundle --no-cubin --fuse-recurrence -o %t/k256_safe.kdab
// RUN: kda-translate %t/k128_bf16.mlir --kda-to-bundle --no-cubin --fuse-recurrence -o %t/k128_bf16.kdab
// RUN: kda-translate %t/b_sigmoid_neg.mlir --kda-to-bundle --no-cubin --fuse-recurrence -o %t/b_sigmoid_neg.kdab
// RUN: kda-translate %t/flashkda_flags.mlir --kda-to-bundle --no-cubin --fuse-recurrence --fuse-chunk-kernels -o %t/flashkda_flags.kdab
// RUN: kda-translate %t/c16_flashkda_flags.mlir --kda-to-bundle --no-cubin --fuse-recurrence --fuse-chunk-kernels -o %t/c16_flashkda_flags.kdab
// RUN: kda-translate %t/varlen_f16_vk.mlir --kda-to-bundle --no-cubin --fuse-recurrence --fuse-scan-output -o %t/varlen_f16_vk_fso.kdab
// RUN: kda-translate %t/k128_bf16.mlir --kda-to-bundle --no-cubin --fuse-recurrence --fuse-chunk-kernels --chunk-size 16 -o %t/k128_bf16_c16.kdab
// RUN: kda-translate %t/t10_gva_bf16_softplus.mlir --kda-to-bundle --no-cubin --fuse-recurrence --fuse-chunk-kernels -o %t/t10_gva_bf16_softplus.kdab
// RUN: kda-translate %t/varlen_f16_vk.mlir --kda-to-bundle --no-cubin --fuse-recurrence --chunk-size 64 -o %t/varlen_f16_vk_c64.kdab
// RUN: kda-translate %t/varlen_f16_vk.mlir --kda-to-bundle --no-cubin --fuse-recurrence --fuse-chunk-kernels -o %t/varlen_f16_vk_fused.kdab
// RUN: kda-translate %t/f32_kv.mlir --kda-to-bundle --no-cubin --fuse-recurrence --fuse-chunk-kernels -o %t/f32_kv_fused.kdab
// RUN: kda-translate %t/k256_safe.mlir --kda-to-bundle --no-cubin --fuse-recurrence --fuse-chunk-kernels -o %t/k256_safe_fused.kdab
// RUN: kda-translate %t/gva_l2norm_f16.mlir --kda-to-bundle --no-cubin --fuse-recurrence --fuse-chunk-kernels --fuse-preprocessing -o %t/gva_l2norm_f16.kdab
// RUN: kda-translate %t/gva_l2norm_f16.mlir --kda-to-bundle --no-cubin --fuse-recurrence --fuse-chunk-kernels --fuse-preprocessing --chunk-size 16 -o %t/gva_l2norm_f16_c16.kdab
// RUN: kda-translate %t/gva_l2norm_f16.mlir --kda-to-bundle --no-cubin --fuse-recurrence --fuse-chunk-kernels -o %t/gva_l2norm_f16_apart.kdab
// RUN: kda-translate %t/flashkda_flags.mlir --kda-to-bundle --no-cubin --fuse-recurrence --fuse-chunk-kernels --fuse-preprocessing -o %t/flashkda_flags_pre.kdab
// RUN: kda-translate %t/varlen_f16_vk.mlir --kda-to-bundle --no-cubin --fuse-recurrence --tuning-override chunk_recurrence.transpose_state=true -o %t/varlen_f16_vk_tr.kdab
// RUN: kda-translate %t/f32_kv.mlir --kda-to-bundle --no-cubin --fuse-recurrence --tuning-override chunk_recurrence.transpose_state=true -o %t/f32_kv_tr.kdab
// RUN: kda-translate %t/k256_safe.mlir --kda-to-bundle --no-cubin --fuse-recurrence --tuning-override chunk_recurrence.transpose_state=true -o %t/k256_safe_tr.kdab
// RUN: kda-translate %t/c16_flashkda_flags.mlir --kda-to-bundle --no-cubin --fuse-recurrence --fuse-chunk-kernels --tuning-override chunk_recurrence.transpose_state=true -o %t/c16_flashkda_flags_tr.kdab
// RUN: kda-translate %t/flashkda_flags.mlir --kda-to-bundle --no-cubin --fuse-recurrence --fuse-chunk-kernels --fuse-preprocessing --approximate-sigmoid -o %t/flashkda_flags_approx.kdab
// RUN: kda-run %t/gva_bf16.kdab --cpu --batch 2 --seq-len 200 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/flashkda_flags_approx.kdab --cpu --batch 1 --seq-len 1000 --heads 4 --value-heads 4 --cu-seqlens 0,256,500,1000 --check-heads 6 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/varlen_f16_vk_tr.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 4 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/f32_kv_tr.kdab --cpu --batch 2 --seq-len 129 --heads 1 --value-heads 2 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/k256_safe_tr.kdab --cpu --batch 1 --seq-len 700 --heads 2 --value-heads 2 --cu-seqlens 0,100,300,700 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/c16_flashkda_flags_tr.kdab --cpu --batch 1 --seq-len 1000 --heads 4 --value-heads 4 --cu-seqlens 0,1,17,500,1000 --check-heads 6 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/varlen_f16_vk.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 4 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/varlen_f16_vk.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 4 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/varlen_f16_vk_fso.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 4 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/f32_kv.kdab --cpu --batch 2 --seq-len 129 --heads 1 --value-heads 2 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/k256_safe.kdab --cpu --batch 1 --seq-len 700 --heads 2 --value-heads 2 --cu-seqlens 0,100,300,700 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/k128_bf16.kdab --cpu --batch 1 --seq-len 1000 --heads 2 --value-heads 2 --mask-p 0.5 --check-heads 2 | FileCheck %s
// RUN: kda-run %t/b_sigmoid_neg.kdab --cpu --batch 2 --seq-len 96 --heads 2 --value-heads 2 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/flashkda_flags.kdab --cpu --batch 1 --seq-len 1000 --heads 4 --value-heads 4 --cu-seqlens 0,256,500,1000 --check-heads 6 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/c16_flashkda_flags.kdab --cpu --batch 1 --seq-len 1000 --heads 4 --value-heads 4 --cu-seqlens 0,1,17,500,1000 --check-heads 6 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/k128_bf16_c16.kdab --cpu --batch 1 --seq-len 1000 --heads 2 --value-heads 2 --mask-p 0.5 --check-heads 2 | FileCheck %s --check-prefixes=CHECK,C16
// RUN: kda-run %t/varlen_f16_vk_c64.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 4 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s --check-prefixes=CHECK,STATES,C64
// RUN: kda-run %t/t10_gva_bf16_softplus.kdab --cpu --batch 2 --seq-len 130 --heads 2 --value-heads 8 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/varlen_f16_vk_fused.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 4 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/f32_kv_fused.kdab --cpu --batch 2 --seq-len 129 --heads 1 --value-heads 2 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/k256_safe_fused.kdab --cpu --batch 1 --seq-len 700 --heads 2 --value-heads 2 --cu-seqlens 0,100,300,700 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/gva_l2norm_f16.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 8 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/gva_l2norm_f16_c16.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 8 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s --check-prefixes=CHECK,STATES,C16
// RUN: kda-run %t/gva_l2norm_f16.kdab --cpu --batch 1 --seq-len 1000 --heads 2 --value-heads 8 --cu-seqlens 0,15,100,300,1000 --mask-p 0.1 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/gva_l2norm_f16_apart.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 8 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/flashkda_flags_pre.kdab --cpu --batch 1 --seq-len 1000 --heads 4 --value-heads 4 --cu-seqlens 0,256,500,1000 --check-heads 6 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: not kda-run %t/gva_bf16.kdab --cpu --batch 1 --seq-len 63 --heads 1 --value-heads 4 --inject-error | FileCheck %s --check-prefix=BAD
// RUN: kda-opt %t/gva_l2norm_f16.mlir --kda-to-linalg-pipeline="fuse-recurrence fuse-chunk-kernels fuse-preprocessing" | FileCheck %s --check-prefix=PRIVATE
// RUN: kda-translate %t/flashkda_flags.mlir --kda-to-ptx --fuse-recurrence --fuse-chunk-kernels --fuse-preprocessing | FileCheck %s --check-prefix=PTX-PRE
// RUN: kda-translate %t/k128_bf16.mlir --kda-to-ptx --fuse-recurrence --fuse-chunk-kernels | FileCheck %s --check-prefix=PTX
// RUN: kda-translate %t/flashkda_flags.mlir --kda-to-ptx --fuse-recurrence --fuse-chunk-kernels | FileCheck %s --check-prefix=PTX-FLASHKDA

// CHECK: (program=chunk_fwd) on the CPU build
// C16-SAME: chunk=16
// C64-SAME: chunk=64
// CHECK: {{^}}o {{.*}} ok{{$}}
// STATES: {{^}}final_state {{.*}} ok{{$}}
// CHECK-NOT: FAIL
// CHECK: PASS
// BAD: FAIL

// With fla's default flags the forward is two kernels: the per-chunk
// stages as one, then the recurrence. With FlashKDA's, the token-parallel
// l2norm and beta sigmoid run before them as kernels of their own, or with
// --fuse-preprocessing in the first, on its chunk programs.
// PTX: .visible .entry k128_bf16_gate_cumsum_0_intra_diag_1_inter_solve_2_decay_apply_3(
// PTX: .visible .entry k128_bf16_chunk_recurrence_4(
// PTX-NOT: .entry
// PTX-FLASHKDA: .visible .entry flashkda_flags_l2norm_0(
// PTX-FLASHKDA: .visible .entry flashkda_flags_l2norm_1(
// PTX-FLASHKDA: .visible .entry flashkda_flags_beta_activation_2(
// PTX-FLASHKDA: .visible .entry flashkda_flags_gate_cumsum_3_intra_diag_4_inter_solve_5_decay_apply_6(
// PTX-FLASHKDA: .visible .entry flashkda_flags_chunk_recurrence_7(
// PTX-FLASHKDA-NOT: .entry
// PTX-PRE: .visible .entry flashkda_flags_l2norm_0_1_beta_activation_2_gate_cumsum_3_intra_diag_4_inter_solve_5_decay_apply_6(
// PTX-PRE: .visible .entry flashkda_flags_chunk_recurrence_7(
// PTX-PRE-NOT: .entry

// The host allocates no q_norm or k_norm ([1, T, 2, 64] f16) and beta only
// for the recurrence; the fused kernel keeps q_norm, k_norm ([1, 64, 1, 64]
// f16), G ([1, 64, 1, 64] f32) and Akkd in buffers of its own.
// PRIVATE-LABEL: func.func @gva_l2norm_f16(
// PRIVATE-NOT: memref.alloc({{.*}}) : memref<1x?x2x64xf16>
// PRIVATE: memref.alloc(%{{.*}}) : memref<1x?x8xf32>
// PRIVATE-NOT: memref.alloc({{.*}}) : memref<1x?x2x64xf16>
// PRIVATE: tile.launch @gva_l2norm_f16_l2norm_0_1_beta_activation_2_gate_cumsum_3_intra_diag_4_inter_solve_5_decay_apply_6
// PRIVATE: tile.launch @gva_l2norm_f16_chunk_recurrence_7
// PRIVATE: func.func @gva_l2norm_f16_l2norm_0_1_beta_activation_2_gate_cumsum_3_intra_diag_4_inter_solve_5_decay_apply_6(
// PRIVATE-DAG: memref.alloc() : memref<1x64x1x16xf32>
// PRIVATE-DAG: memref.alloc() : memref<1x64x1x64xf32>
// PRIVATE-DAG: memref.alloc() : memref<1x64x1x64xf16>
// PRIVATE-DAG: memref.alloc() : memref<1x64x1x64xf16>

//--- gva_bf16.mlir
func.func @gva_bf16(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>,
                    %v: tensor<?x?x?x128xbf16>, %g: tensor<?x?x?x64xf32>,
                    %beta: tensor<?x?x?xf32>) -> tensor<?x?x?x128xbf16> {
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x128xbf16>,
         tensor<?x?x?x64xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?x128xbf16>
  return %o : tensor<?x?x?x128xbf16>
}

//--- varlen_f16_vk.mlir
func.func @varlen_f16_vk(%q: tensor<1x?x2x100xf16>, %k: tensor<1x?x2x100xf16>,
                         %v: tensor<1x?x4x60xf16>, %g: tensor<1x?x4x100xf32>,
                         %beta: tensor<1x?x4xf32>, %h0: tensor<?x4x60x100xf32>,
                         %cu: tensor<?xi64>)
    -> (tensor<1x?x4x60xf16>, tensor<?x4x60x100xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 cu_seqlens %cu
      {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x2x100xf16>, tensor<1x?x2x100xf16>, tensor<1x?x4x60xf16>,
         tensor<1x?x4x100xf32>, tensor<1x?x4xf32>, tensor<?x4x60x100xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x60xf16>, tensor<?x4x60x100xf32>)
  return %o, %ht : tensor<1x?x4x60xf16>, tensor<?x4x60x100xf32>
}

//--- f32_kv.mlir
func.func @f32_kv(%q: tensor<?x?x1x128xf32>, %k: tensor<?x?x1x128xf32>,
                  %v: tensor<?x?x2x64xf32>, %g: tensor<?x?x2x128xf32>,
                  %beta: tensor<?x?x2xf32>, %h0: tensor<?x2x128x64xf32>)
    -> (tensor<?x?x2x64xf32>, tensor<?x2x128x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0
      : (tensor<?x?x1x128xf32>, tensor<?x?x1x128xf32>, tensor<?x?x2x64xf32>,
         tensor<?x?x2x128xf32>, tensor<?x?x2xf32>, tensor<?x2x128x64xf32>)
      -> (tensor<?x?x2x64xf32>, tensor<?x2x128x64xf32>)
  return %o, %ht : tensor<?x?x2x64xf32>, tensor<?x2x128x64xf32>
}

//--- k256_safe.mlir
func.func @k256_safe(%q: tensor<1x?x2x256xf16>, %k: tensor<1x?x2x256xf16>,
                     %v: tensor<1x?x2x256xf16>, %g: tensor<1x?x2x256xf32>,
                     %beta: tensor<1x?x2xf32>, %h0: tensor<?x2x256x256xf32>,
                     %cu: tensor<?xi64>)
    -> (tensor<1x?x2x256xf16>, tensor<?x2x256x256xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 cu_seqlens %cu {safe_gate}
      : (tensor<1x?x2x256xf16>, tensor<1x?x2x256xf16>, tensor<1x?x2x256xf16>,
         tensor<1x?x2x256xf32>, tensor<1x?x2xf32>, tensor<?x2x256x256xf32>, tensor<?xi64>)
      -> (tensor<1x?x2x256xf16>, tensor<?x2x256x256xf32>)
  return %o, %ht : tensor<1x?x2x256xf16>, tensor<?x2x256x256xf32>
}

//--- k128_bf16.mlir
func.func @k128_bf16(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>,
                     %v: tensor<?x?x?x128xbf16>, %g: tensor<?x?x?x128xf32>,
                     %beta: tensor<?x?x?xf32>) -> tensor<?x?x?x128xbf16> {
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
         tensor<?x?x?x128xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?x128xbf16>
  return %o : tensor<?x?x?x128xbf16>
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

//--- c16_flashkda_flags.mlir
func.func @c16_flashkda_flags(%q: tensor<1x?x4x128xbf16>, %k: tensor<1x?x4x128xbf16>, %v: tensor<1x?x4x128xbf16>, %g: tensor<1x?x4x128xbf16>, %beta: tensor<1x?x4xbf16>, %A: tensor<4xf32>, %dt: tensor<4x128xf32>, %h0: tensor<?x4x128x128xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x4x128xbf16>, tensor<?x4x128x128xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %A dt_bias %dt initial_state %h0 cu_seqlens %cu {chunk_size = 16 : i64, use_qk_l2norm, use_beta_sigmoid, safe_gate, gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4xbf16>, tensor<4xf32>, tensor<4x128xf32>, tensor<?x4x128x128xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x128xbf16>, tensor<?x4x128x128xf32>)
  return %o, %ht : tensor<1x?x4x128xbf16>, tensor<?x4x128x128xf32>
}

//--- t10_gva_bf16_softplus.mlir
func.func @t10_gva_bf16_softplus(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x8x64xbf16>, %g: tensor<?x?x8x64xf32>, %beta: tensor<?x?x8xf32>, %A: tensor<8xf32>, %dt: tensor<8x64xf32>)
    -> (tensor<?x?x8x64xbf16>, tensor<?x8x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %A dt_bias %dt {scale = 0.1 : f32, gate_mode = #kda<gate_mode softplus>}
      : (tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x8x64xbf16>, tensor<?x?x8x64xf32>, tensor<?x?x8xf32>, tensor<8xf32>, tensor<8x64xf32>)
      -> (tensor<?x?x8x64xbf16>, tensor<?x8x64x64xf32>)
  return %o, %ht : tensor<?x?x8x64xbf16>, tensor<?x8x64x64xf32>
}
//--- gva_l2norm_f16.mlir
func.func @gva_l2norm_f16(%q: tensor<1x?x2x64xf16>, %k: tensor<1x?x2x64xf16>, %v: tensor<1x?x8x64xf16>, %g: tensor<1x?x8x64xf32>, %beta: tensor<1x?x8xf16>, %h0: tensor<?x8x64x64xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x8x64xf16>, tensor<?x8x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 cu_seqlens %cu {use_qk_l2norm, use_beta_sigmoid, allow_neg_eigval}
      : (tensor<1x?x2x64xf16>, tensor<1x?x2x64xf16>, tensor<1x?x8x64xf16>, tensor<1x?x8x64xf32>, tensor<1x?x8xf16>, tensor<?x8x64x64xf32>, tensor<?xi64>)
      -> (tensor<1x?x8x64xf16>, tensor<?x8x64x64xf32>)
  return %o, %ht : tensor<1x?x8x64xf16>, tensor<?x8x64x64xf32>
}
