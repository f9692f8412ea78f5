// RUN: kda-translate %s --split-input-file --kda-to-ptx | FileCheck %s
// RUN: kda-translate %s --split-input-file --kda-to-ptx --fuse-recurrence=false | FileCheck %s --check-prefix=STAGED
// RUN: kda-translate %s --split-input-file --kda-to-ptx --chunk-size 16 | FileCheck %s --check-prefix=STAGED
// RUN: kda-translate %s --split-input-file --kda-to-ptx --fuse-recurrence | FileCheck %s --check-prefix=UNFUSED
// RUN: kda-translate %s --split-input-file --kda-to-ptx --duplicate-small-operands=false | FileCheck %s --check-prefix=NODUP

// Without --chunk-size and the --fuse-* flags, kda-translate builds each
// program's forward in the form the target tuning prefers
// (kda::preferredForwardForm): the recurrent form at chunk 16 with the
// per-chunk stages in one kernel where the chunk recurrence runs on
// registers (K from 65 to 128, q, k and v of one 16-bit type), the staged
// form otherwise, and for a module one of whose forwards prefers it. Any
// form flag gives exactly the form it names: --fuse-recurrence=false or
// --chunk-size alone the staged form, --fuse-recurrence alone the
// recurrent form without the fused per-chunk kernel.

// CHECK-LABEL: .visible .entry k128_bf16_gate_cumsum_0_intra_diag_1_inter_solve_2_decay_apply_3(
// CHECK: .visible .entry k128_bf16_chunk_recurrence_4(
// With static head counts the recurrence's M and Aqk blocks are computed
// in every warp (duplicate-small-operands): one barrier per chunk.
// CHECK-COUNT-1: bar.sync
// CHECK-NOT: bar.sync
// CHECK-NOT: .entry
// An explicit --duplicate-small-operands=false keeps the form, not the
// duplication: five barriers per chunk.
// NODUP-LABEL: .visible .entry k128_bf16_chunk_recurrence_4(
// NODUP-COUNT-5: bar.sync
// NODUP-NOT: bar.sync
// NODUP-LABEL: .visible .entry dyn_heads_gate_cumsum_0_intra_diag_1_inter_solve_2_decay_apply_3(
// STAGED-LABEL: .visible .entry k128_bf16_gate_cumsum_0(
// STAGED: .visible .entry k128_bf16_state_scan_4(
// STAGED: .visible .entry k128_bf16_output_5(
// UNFUSED-LABEL: .visible .entry k128_bf16_gate_cumsum_0(
// UNFUSED: .visible .entry k128_bf16_decay_apply_3(
// UNFUSED: .visible .entry k128_bf16_chunk_recurrence_4(
func.func @k128_bf16(%q: tensor<1x?x2x128xbf16>, %k: tensor<1x?x2x128xbf16>,
                     %v: tensor<1x?x2x128xbf16>, %g: tensor<1x?x2x128xf32>,
                     %beta: tensor<1x?x2xf32>)
    -> tensor<1x?x2x128xbf16> {
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<1x?x2x128xbf16>, tensor<1x?x2x128xbf16>, tensor<1x?x2x128xbf16>,
         tensor<1x?x2x128xf32>, tensor<1x?x2xf32>) -> tensor<1x?x2x128xbf16>
  return %o : tensor<1x?x2x128xbf16>
}

// -----

// Dynamic head counts: the recurrent form, M and Aqk converted through
// shared memory (ptxas spilled more at the recurrence's cap with them
// duplicated): five barriers per chunk.
// CHECK-LABEL: .visible .entry dyn_heads_gate_cumsum_0_intra_diag_1_inter_solve_2_decay_apply_3(
// CHECK: .visible .entry dyn_heads_chunk_recurrence_4(
// CHECK-COUNT-5: bar.sync
// CHECK-NOT: bar.sync
func.func @dyn_heads(%q: tensor<1x?x?x128xbf16>, %k: tensor<1x?x?x128xbf16>,
                     %v: tensor<1x?x?x128xbf16>, %g: tensor<1x?x?x128xf32>,
                     %beta: tensor<1x?x?xf32>)
    -> tensor<1x?x?x128xbf16> {
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<1x?x?x128xbf16>, tensor<1x?x?x128xbf16>, tensor<1x?x?x128xbf16>,
         tensor<1x?x?x128xf32>, tensor<1x?x?xf32>) -> tensor<1x?x?x128xbf16>
  return %o : tensor<1x?x?x128xbf16>
}

// -----

// K = 64: the chunk recurrence would stay on shared memory, where the
// staged form is faster.
// CHECK-LABEL: .visible .entry k64_bf16_gate_cumsum_0(
// CHECK: .visible .entry k64_bf16_state_scan_4(
// CHECK: .visible .entry k64_bf16_output_5(
func.func @k64_bf16(%q: tensor<1x?x2x64xbf16>, %k: tensor<1x?x2x64xbf16>,
                    %v: tensor<1x?x2x64xbf16>, %g: tensor<1x?x2x64xf32>,
                    %beta: tensor<1x?x2xf32>)
    -> tensor<1x?x2x64xbf16> {
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<1x?x2x64xbf16>, tensor<1x?x2x64xbf16>, tensor<1x?x2x64xbf16>,
         tensor<1x?x2x64xf32>, tensor<1x?x2xf32>) -> tensor<1x?x2x64xbf16>
  return %o : tensor<1x?x2x64xbf16>
}

// -----

// f32 I/O: staged.
// CHECK-LABEL: .visible .entry k128_f32_gate_cumsum_0(
// CHECK: .visible .entry k128_f32_state_scan_4(
func.func @k128_f32(%q: tensor<1x?x2x128xf32>, %k: tensor<1x?x2x128xf32>,
                    %v: tensor<1x?x2x128xf32>, %g: tensor<1x?x2x128xf32>,
                    %beta: tensor<1x?x2xf32>)
    -> tensor<1x?x2x128xf32> {
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<1x?x2x128xf32>, tensor<1x?x2x128xf32>, tensor<1x?x2x128xf32>,
         tensor<1x?x2x128xf32>, tensor<1x?x2xf32>) -> tensor<1x?x2x128xf32>
  return %o : tensor<1x?x2x128xf32>
}

// -----

// A module with a forward that prefers the staged form is built staged
// throughout.
// CHECK-LABEL: .visible .entry mixed_a_gate_cumsum_0(
// CHECK: .visible .entry mixed_a_state_scan_4(
// CHECK: .visible .entry mixed_b_state_scan_4(
func.func @mixed_a(%q: tensor<1x?x2x128xbf16>, %k: tensor<1x?x2x128xbf16>,
                   %v: tensor<1x?x2x128xbf16>, %g: tensor<1x?x2x128xf32>,
                   %beta: tensor<1x?x2xf32>)
    -> tensor<1x?x2x128xbf16> {
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<1x?x2x128xbf16>, tensor<1x?x2x128xbf16>, tensor<1x?x2x128xbf16>,
         tensor<1x?x2x128xf32>, tensor<1x?x2xf32>) -> tensor<1x?x2x128xbf16>
  return %o : tensor<1x?x2x128xbf16>
}
func.func @mixed_b(%q: tensor<1x?x2x64xbf16>, %k: tensor<1x?x2x64xbf16>,
                   %v: tensor<1x?x2x64xbf16>, %g: tensor<1x?x2x64xf32>,
                   %beta: tensor<1x?x2xf32>)
    -> tensor<1x?x2x64xbf16> {
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<1x?x2x64xbf16>, tensor<1x?x2x64xbf16>, tensor<1x?x2x64xbf16>,
         tensor<1x?x2x64xf32>, tensor<1x?x2xf32>) -> tensor<1x?x2x64xbf16>
  return %o : tensor<1x?x2x64xbf16>
}
