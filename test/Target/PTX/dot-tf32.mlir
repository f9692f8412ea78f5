// RUN: kda-translate %kda_src_root/examples/tile_dot_tf32.mlir --kda-to-ptx | FileCheck %s
// RUN: kda-translate %kda_src_root/examples/tile_dot_tf32.mlir --kda-to-ptx | FileCheck %s --check-prefix=COPIES
// RUN: kda-translate %kda_src_root/examples/tile_dot_tf32.mlir --kda-to-ptx | FileCheck %s --check-prefix=WAIT
// RUN: %if ptxas %{ kda-translate %kda_src_root/examples/tile_dot_tf32.mlir --kda-to-ptx -o %t.ptx && %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// tile.dot with precision = tf32 becomes tensor-core mma.sync (each of the
// two K steps of 32 is 4 x k8 for each of the two 16x8 halves of the 16x16
// tile: 8 mma.sync per step; LLVM may or may not unroll the two steps), with
// the operands rounded to tf32 on the way. The operand tiles arrive with
// 16-byte cp.async copies of whole pieces (a piece the box cuts is copied
// element by element: no copy has a smaller source size), waited for once,
// before the first mma (LLVM may place the wait's block before the block
// that issues the copies in the text).

// CHECK: .visible .entry matmul_tile(
// CHECK-COUNT-8: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// COPIES: .visible .entry matmul_tile(
// COPIES-COUNT-8: cp.async.cg.shared.global [{{%rd[0-9]+}}], [{{%rd[0-9]+}}], 16;
// COPIES-NOT: cp.async.cg.shared.global {{.*}}, 16,
// WAIT: cp.async.wait_group 0
// WAIT-NOT: cp.async.wait_group
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
