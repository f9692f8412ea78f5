// RUN: kda-translate %kda_src_root/examples/tile_dot_tf32.mlir --kda-to-ptx | FileCheck %s
// RUN: %if ptxas %{ kda-translate %kda_src_root/examples/tile_dot_tf32.mlir --kda-to-ptx -o %t.ptx && %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// tile.dot with precision = tf32 becomes tensor-core mma.sync (two K steps
// of 32 = 4 x k8, two 16x8 halves of the 16x16 tile per step: 16 mma.sync
// in the unrolled loop), with the operands rounded to tf32 on the way.

// CHECK: .visible .entry matmul_tile(
// CHECK-COUNT-16: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-NOT: mma.sync
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
