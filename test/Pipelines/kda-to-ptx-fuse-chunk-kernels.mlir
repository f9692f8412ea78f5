// RUN: kda-opt %s --kda-to-ptx-pipeline="fuse-chunk-kernels" | FileCheck %s
// RUN: kda-opt %s --kda-to-ptx-pipeline | FileCheck %s --check-prefix=APART

// With fuse-chunk-kernels, the gate cumsum (given one program per chunk),
// the diagonal blocks, the solve and the WY recompute (four launches over
// one grid of chunk programs) run as one kernel of 128 threads on the
// shared-memory mapping: one gpu.module and one launch. The state scan (a
// grid over sequences) and the output (a grid over V tiles too) keep their
// own. Without the option, four launches.

// CHECK-LABEL: func.func @forward
// CHECK: gpu.launch_func @forward_gate_cumsum_0_intra_diag_1_inter_solve_2_wy_recompute_3_module::@forward_gate_cumsum_0_intra_diag_1_inter_solve_2_wy_recompute_3 blocks in ({{.*}}) threads in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}})
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.launch_func @forward_state_scan_4_module::@forward_state_scan_4
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.launch_func @forward_output_5_module
// Its shared memory is dynamic, declared as an extern array (not a one-byte
// variable addressed past its end; gpu-extern-dynamic-shared-memory).
// CHECK: gpu.binary @forward_gate_cumsum_0_intra_diag_1_inter_solve_2_wy_recompute_3_module {{.*}}.extern .shared .align 16 .b8 __dynamic_shmem__0[];{{.*}}.visible .entry forward_gate_cumsum_0_intra_diag_1_inter_solve_2_wy_recompute_3(
// CHECK-NOT: .b8 __dynamic_shmem__0;

// APART: gpu.launch_func @forward_gate_cumsum_0_module::@forward_gate_cumsum_0
// APART-NOT: gpu.launch_func
// APART: gpu.launch_func @forward_intra_diag_1_module::@forward_intra_diag_1
// APART-NOT: gpu.launch_func
// APART: gpu.launch_func @forward_inter_solve_2_module::@forward_inter_solve_2
// APART-NOT: gpu.launch_func
// APART: gpu.launch_func @forward_wy_recompute_3_module::@forward_wy_recompute_3

func.func @forward(%q: tensor<1x?x2x64xbf16>, %k: tensor<1x?x2x64xbf16>,
                   %v: tensor<1x?x2x64xbf16>, %g: tensor<1x?x2x64xf32>,
                   %beta: tensor<1x?x2xf32>) -> tensor<1x?x2x64xbf16> {
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<1x?x2x64xbf16>, tensor<1x?x2x64xbf16>, tensor<1x?x2x64xbf16>,
         tensor<1x?x2x64xf32>, tensor<1x?x2xf32>) -> tensor<1x?x2x64xbf16>
  return %o : tensor<1x?x2x64xbf16>
}
