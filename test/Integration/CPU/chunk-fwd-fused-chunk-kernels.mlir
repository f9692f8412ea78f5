// The whole forward with the per-chunk stages that follow one another (the
// gate cumsum, given one program per chunk, the diagonal blocks, the solve
// and the WY recompute) run as one kernel
// (kda-translate --fuse-chunk-kernels: kda-fuse-tile-launches) on the CPU
// build, against the float64 per-token recurrence at fla's threshold:
// bf16 with grouped value heads and T not a multiple of the chunk; f16
// varlen with empty and one-token sequences, K = 100 != V = 60, chunk 32,
// initial and final state in layout vk; f32 with K = 128 != V = 64; K = V =
// 256 with safe_gate, varlen and states; K = V = 128 bf16 with gates masked
// to -1000, also with the output inside the state scan; l2norm, softplus
// gate and beta sigmoid in the kernel; chunk 32 with safe_gate and a
// lower-bound gate; l2norm and beta sigmoid with grouped value heads,
// varlen and f16 (with --fuse-preprocessing the preprocessing stages join
// the kernel on the gate's chunk programs; q_norm, which the output kernel
// reads too, is written by each value head of a group, with the same
// values). The first RUN lines
// check that the four kernels are one.

// RUN: split-file %s %t
// RUN: kda-opt %t/gva_bf16.mlir --kda-to-linalg-pipeline=fuse-chunk-kernels | FileCheck %s --check-prefix=FUSED
// FUSED: tile.launch @gva_bf16_gate_cumsum_0_intra_diag_1_inter_solve_2_wy_recompute_3
// FUSED-NOT: tile.launch
// FUSED: tile.launch @gva_bf16_state_scan_4
// FUSED-NOT: tile.launch
// FUSED: tile.launch @gva_bf16_output_5
// RUN: kda-translate %t/gva_bf16.mlir --kda-to-bundle --no-cubin --fuse-chunk-kernels -o %t/gva_bf16.kdab
// RUN: kda-translate %t/varlen_f16_vk.mlir --kda-to-bundle --no-cubin --fuse-chunk-kernels -o %t/varlen_f16_vk.kdab
// RUN: kda-translate %t/f32_kv.mlir --kda-to-bundle --no-cubin --fuse-chunk-kernels -o %t/f32_kv.kdab
// RUN: kda-translate %t/k256_safe.mlir --kda-to-bundle --no-cubin --fuse-chunk-kernels -o %t/k256_safe.kdab
// RUN: kda-translate %t/k128_bf16.mlir --kda-to-bundle --no-cubin --fuse-chunk-kernels -o %t/k128_bf16.kdab
// RUN: kda-translate %t/k128_bf16.mlir --kda-to-bundle --no-cubin --fuse-chunk-kernels --fuse-scan-output -o %t/k128_bf16_scan.kdab
// RUN: kda-translate %t/t6_l2norm_softplus_bf16.mlir --kda-to-bundle --no-cubin --fuse-chunk-kernels -o %t/t6.kdab
// RUN: kda-translate %t/t12_chunk32_safe_lb.mlir --kda-to-bundle --no-cubin --fuse-chunk-kernels -o %t/t12.kdab
// RUN: kda-translate %t/gva_l2norm_f16.mlir --kda-to-bundle --no-cubin --fuse-chunk-kernels --fuse-preprocessing -o %t/gva_l2norm_f16.kdab
// RUN: kda-opt %t/gva_l2norm_f16.mlir --kda-to-linalg-pipeline="fuse-chunk-kernels fuse-preprocessing" | FileCheck %s --check-prefix=PREP
// PREP: tile.launch @gva_l2norm_f16_l2norm_0_1_beta_activation_2_gate_cumsum_3_intra_diag_4_inter_solve_5_wy_recompute_6
// PREP-NOT: tile.launch
// PREP: tile.launch @gva_l2norm_f16_state_scan_7
// RUN: kda-run %t/gva_bf16.kdab --cpu --batch 2 --seq-len 200 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/varlen_f16_vk.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 4 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/varlen_f16_vk.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 4 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/f32_kv.kdab --cpu --batch 2 --seq-len 129 --heads 1 --value-heads 2 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/k256_safe.kdab --cpu --batch 1 --seq-len 700 --heads 2 --value-heads 2 --cu-seqlens 0,100,300,700 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/k128_bf16.kdab --cpu --batch 1 --seq-len 1000 --heads 2 --value-heads 2 --mask-p 0.5 --check-heads 2 | FileCheck %s
// RUN: kda-run %t/k128_bf16_scan.kdab --cpu --batch 1 --seq-len 1000 --heads 2 --value-heads 2 --mask-p 0.5 --check-heads 2 | FileCheck %s
// RUN: kda-run %t/t6.kdab --cpu --batch 2 --seq-len 200 --heads 2 --value-heads 2 | FileCheck %s
// RUN: kda-run %t/t12.kdab --cpu --batch 2 --seq-len 160 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/gva_l2norm_f16.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 8 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: not kda-run %t/gva_bf16.kdab --cpu --batch 1 --seq-len 63 --heads 1 --value-heads 4 --inject-error | FileCheck %s --check-prefix=BAD

// CHECK: (program=chunk_fwd) on the CPU build
// CHECK: {{^}}o {{.*}} ok{{$}}
// STATES: {{^}}final_state {{.*}} ok{{$}}
// CHECK-NOT: FAIL
// CHECK: PASS
// BAD: FAIL

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
//--- t6_l2norm_softplus_bf16.mlir
func.func @t6_l2norm_softplus_bf16(%q: tensor<?x?x2x128xbf16>, %k: tensor<?x?x2x128xbf16>, %v: tensor<?x?x2x128xbf16>, %g: tensor<?x?x2x128xbf16>, %beta: tensor<?x?x2xf32>, %A: tensor<2xf32>, %dt: tensor<2x128xf32>, %h0: tensor<?x2x128x128xf32>)
    -> (tensor<?x?x2x128xbf16>, tensor<?x2x128x128xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %A dt_bias %dt initial_state %h0 {scale = 0.1 : f32, use_qk_l2norm, gate_mode = #kda<gate_mode softplus>}
      : (tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2xf32>, tensor<2xf32>, tensor<2x128xf32>, tensor<?x2x128x128xf32>)
      -> (tensor<?x?x2x128xbf16>, tensor<?x2x128x128xf32>)
  return %o, %ht : tensor<?x?x2x128xbf16>, tensor<?x2x128x128xf32>
}

//--- t12_chunk32_safe_lb.mlir
func.func @t12_chunk32_safe_lb(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x4x64xbf16>, %g: tensor<?x?x4x64xbf16>, %beta: tensor<?x?x4xf32>, %A: tensor<4xf32>, %dt: tensor<4x64xf32>, %h0: tensor<?x4x64x64xf32>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x4x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %A dt_bias %dt initial_state %h0 {scale = 0.1 : f32, chunk_size = 32 : i64, safe_gate, gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32}
      : (tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4xf32>, tensor<4xf32>, tensor<4x64xf32>, tensor<?x4x64x64xf32>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x4x64x64xf32>)
  return %o, %ht : tensor<?x?x4x64xbf16>, tensor<?x4x64x64xf32>
}

//--- gva_l2norm_f16.mlir
func.func @gva_l2norm_f16(%q: tensor<1x?x2x64xf16>, %k: tensor<1x?x2x64xf16>, %v: tensor<1x?x8x64xf16>, %g: tensor<1x?x8x64xf32>, %beta: tensor<1x?x8xf16>, %h0: tensor<?x8x64x64xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x8x64xf16>, tensor<?x8x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 cu_seqlens %cu {use_qk_l2norm, use_beta_sigmoid, allow_neg_eigval}
      : (tensor<1x?x2x64xf16>, tensor<1x?x2x64xf16>, tensor<1x?x8x64xf16>, tensor<1x?x8x64xf32>, tensor<1x?x8xf16>, tensor<?x8x64x64xf32>, tensor<?xi64>)
      -> (tensor<1x?x8x64xf16>, tensor<?x8x64x64xf32>)
  return %o, %ht : tensor<1x?x8x64xf16>, tensor<?x8x64x64xf32>
}
