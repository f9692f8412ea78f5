// REQUIRES: ptxas
// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=RECURRENT < %t.log
// RUN: FileCheck %s --check-prefix=NOSPILL < %t.log
// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx --fuse-recurrence=false -o %t.staged.ptx
// RUN: %ptxas -arch=sm_90 -v %t.staged.ptx -o %t.staged.cubin 2>&1 | FileCheck %s

// The whole forward at the benchmark shape (B=1, H=HV=96, K=V=128, bf16).
// By default kda-translate builds it in the recurrent form at chunk 16:
// the fused per-chunk kernel and the chunk recurrence, neither spilling.
// RECURRENT-DAG: Compiling entry function 'chunk_kda_fwd_gate_cumsum_0_intra_diag_1_inter_solve_2_decay_apply_3' for 'sm_90'
// RECURRENT-DAG: Compiling entry function 'chunk_kda_fwd_chunk_recurrence_4' for 'sm_90'
// RECURRENT-NOT: Compiling entry function
// NOSPILL-NOT: {{[1-9][0-9]*}} bytes spill stores

// The staged form (--fuse-recurrence=false): the six kernels of its launch
// plan assemble for sm_90. With ptxas 13.0 (2026-12-04) wy_recompute spills
// 8 bytes at its cap of 128 registers and inter_solve 4 bytes at 168; this
// test checks that they assemble, the stage tests (wy-recompute-ptxas,
// inter-solve-chunk64-ptxas) bound spills.

// CHECK-DAG: Compiling entry function 'chunk_kda_fwd_gate_cumsum_0' for 'sm_90'
// CHECK-DAG: Compiling entry function 'chunk_kda_fwd_intra_diag_1' for 'sm_90'
// CHECK-DAG: Compiling entry function 'chunk_kda_fwd_inter_solve_2' for 'sm_90'
// CHECK-DAG: Compiling entry function 'chunk_kda_fwd_wy_recompute_3' for 'sm_90'
// CHECK-DAG: Compiling entry function 'chunk_kda_fwd_state_scan_4' for 'sm_90'
// CHECK-DAG: Compiling entry function 'chunk_kda_fwd_output_5' for 'sm_90'
