// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx --tuning-override chunk_recurrence.threads=256,chunk_recurrence.max_registers=128 | FileCheck %s
// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx --tuning-override chunk_recurrence.threads=256 --tuning-override chunk_recurrence.max_registers=128 | FileCheck %s
// RUN: not kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx --tuning-override chunk_recurrence.max_registers=8 2>&1 | FileCheck %s --check-prefix=BAD

// --tuning-override KERNEL.KEY=VALUE (comma-separated or repeated) replaces
// what the target's kernel tuning chose for one kernel, here the chunk
// recurrence of the default (recurrent) forward: 256 threads at most 128
// registers instead of 128 at 168. The fused per-chunk kernel keeps its own
// (at most 96 registers on Hopper).

// CHECK: .visible .entry chunk_kda_fwd_gate_cumsum_0_intra_diag_1_inter_solve_2_decay_apply_3(
// CHECK: .maxntid 128, 1, 1
// CHECK-NEXT: .maxnreg 96
// CHECK: .visible .entry chunk_kda_fwd_chunk_recurrence_4(
// CHECK: .maxntid 256, 1, 1
// CHECK-NEXT: .maxnreg 128

// BAD: error: tuning-override 'chunk_recurrence.max_registers=8': max_registers must be 0 (none) or from 24 to 255
