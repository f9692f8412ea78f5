// REQUIRES: ptxas
// RUN: kda-translate %kda_src_root/examples/state_scan.mlir --kda-to-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s

// The state_scan kernel at the target shape (HV = 96, K = V = 128, bf16,
// initial and final state) assembles for sm_90: one program per (32 V
// columns, batch x value head) carries two [64, 32] f32 state tiles
// through the chunk loop. Its tile temporaries take 52 KB of dynamic
// shared memory (the manifest's `shared` line); measured: 55 registers,
// no spills.

// CHECK: Compiling entry function 'state_scan_state_scan_0' for 'sm_90'
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK: Used {{[0-9]+}} registers, used 1 barriers
