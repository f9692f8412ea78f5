// REQUIRES: ptxas
// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s < %t.log
// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx --exact-diagonal-rows --assign-register-layouts | FileCheck %s --check-prefix=PTX
// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx --tuning-override chunk_stages.mapping=shared_memory | FileCheck %s --check-prefix=SHARED

// The recurrent forward's fused per-chunk kernel (fla's default flags) runs
// on registers by default, as its chunk recurrence does (K = 128 bf16): the
// Hopper tuning prefers registers for the fused kernel's stages there, and
// the exact diagonal blocks are then built by key rows in halves of 8 rows
// (2-D tiles, as with --exact-diagonal-rows), so the kernel gets layouts;
// its reductions along K become warp shuffles, and it assembles without
// spills. The same with --assign-register-layouts (every kernel that can).
// With the per-chunk stages put back on shared memory (--tuning-override
// chunk_stages.mapping=shared_memory) it has no shuffle.

// PTX-LABEL: .visible .entry chunk_kda_fwd_gate_cumsum_0_intra_diag_1_inter_solve_2_decay_apply_3(
// PTX: shfl.sync.bfly
// PTX-LABEL: .visible .entry chunk_kda_fwd_chunk_recurrence_4(

// SHARED-LABEL: .visible .entry chunk_kda_fwd_gate_cumsum_0_intra_diag_1_inter_solve_2_decay_apply_3(
// SHARED-NOT: shfl.sync
// SHARED-LABEL: .visible .entry chunk_kda_fwd_chunk_recurrence_4(

// CHECK: Compiling entry function 'chunk_kda_fwd_gate_cumsum_0_intra_diag_1_inter_solve_2_decay_apply_3' for 'sm_90'
// CHECK-NEXT: Function properties for chunk_kda_fwd_gate_cumsum_0_intra_diag_1_inter_solve_2_decay_apply_3
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
