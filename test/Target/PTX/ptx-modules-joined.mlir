// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx --fuse-recurrence=false | FileCheck %s
// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx --fuse-recurrence=false --mlir-disable-threading | FileCheck %s

// Each kernel of the whole forward is compiled as a PTX module of its own
// (kda-serialize-gpu-modules), and kda-translate joins them into one PTX
// file: one header, then the six kernels of the staged form in launch order. (That ptxas takes
// the joined file: chunk-fwd-ptxas.mlir.)

// CHECK: .version 8.0
// CHECK-NEXT: .target sm_90
// CHECK-NEXT: .address_size 64
// CHECK-NOT: .version
// CHECK: .visible .entry chunk_kda_fwd_gate_cumsum_0(
// CHECK-NOT: .version
// CHECK: .visible .entry chunk_kda_fwd_intra_diag_1(
// CHECK-NOT: .version
// CHECK: .visible .entry chunk_kda_fwd_inter_solve_2(
// CHECK-NOT: .version
// CHECK: .visible .entry chunk_kda_fwd_wy_recompute_3(
// CHECK-NOT: .version
// CHECK: .visible .entry chunk_kda_fwd_state_scan_4(
// CHECK-NOT: .version
// CHECK: .visible .entry chunk_kda_fwd_output_5(
// CHECK-NOT: .version
// CHECK-NOT: .entry
