// REQUIRES: ptxas
// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx --exact-diagonal-rows --assign-register-layouts -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s < %t.log
// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx --exact-diagonal-rows --tuning-override chunk_stages.mapping=registers | FileCheck %s --check-prefix=PTX
// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx --tuning-override chunk_stages.mapping=registers | FileCheck %s --check-prefix=SHARED
// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx -o %t.shared.ptx
// RUN: FileCheck %s --check-prefix=SHARED < %t.shared.ptx

// The recurrent forward's fused per-chunk kernel (fla's default flags) on
// registers: with --exact-diagonal-rows its exact diagonal blocks are 2-D
// tiles, so --assign-register-layouts (every kernel that can) or a tuning
// that asks registers for the per-chunk stages (--tuning-override
// chunk_stages.mapping=registers, this kernel alone) gives the kernel
// layouts; its reductions along K become warp shuffles, and it assembles
// without spills. On the shared-memory mapping (the default), and when its
// [BK, 16, 16] pairwise tiles keep it there although its tuning asks for
// registers, it has no shuffle.

// PTX-LABEL: .visible .entry chunk_kda_fwd_gate_cumsum_0_intra_diag_1_inter_solve_2_decay_apply_3(
// PTX: shfl.sync.bfly
// PTX-LABEL: .visible .entry chunk_kda_fwd_chunk_recurrence_4(

// SHARED-LABEL: .visible .entry chunk_kda_fwd_gate_cumsum_0_intra_diag_1_inter_solve_2_decay_apply_3(
// SHARED-NOT: shfl.sync
// SHARED-LABEL: .visible .entry chunk_kda_fwd_chunk_recurrence_4(

// CHECK: Compiling entry function 'chunk_kda_fwd_gate_cumsum_0_intra_diag_1_inter_solve_2_decay_apply_3' for 'sm_90'
// CHECK-NEXT: Function properties for chunk_kda_fwd_gate_cumsum_0_intra_diag_1_inter_solve_2_decay_apply_3
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
