// REQUIRES: ptxas
// RUN: kda-translate %kda_src_root/examples/state_scan.mlir --kda-to-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// RUN: kda-translate %kda_src_root/examples/state_scan.mlir --kda-to-ptx --register-recurrences --prefetch -o %t.prefetch.ptx
// RUN: FileCheck %s --check-prefix=PREFETCH --input-file %t.prefetch.ptx --implicit-check-not=bar.sync --implicit-check-not=cp.async.wait_group
// RUN: %ptxas -arch=sm_90 -v %t.prefetch.ptx -o %t.prefetch.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS-PREFETCH

// The state_scan kernel at the target shape (HV = 96, K = V = 128, bf16,
// initial and final state) assembles for sm_90: one program per (32 V
// columns, batch x value head) carries two [64, 32] f32 state tiles
// through the chunk loop. Its tile temporaries take 52 KB of dynamic
// shared memory (the manifest's `shared` line); measured: 55 registers,
// no spills.

// CHECK: Compiling entry function 'state_scan_state_scan_0' for 'sm_90'
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK: Used {{[0-9]+}} registers, used 1 barriers

// On registers with --prefetch, w and kg are copied one chunk ahead into
// two-slot shared buffers: the kernel has a single wait for copies and a
// single barrier (in the chunk loop), and assembles without spills.
// PREFETCH: cp.async.wait_group {{[ \t]*}}0;
// PREFETCH-NEXT: bar.sync
// PTXAS-PREFETCH: Compiling entry function 'state_scan_state_scan_0' for 'sm_90'
// PTXAS-PREFETCH: 0 bytes spill stores, 0 bytes spill loads
