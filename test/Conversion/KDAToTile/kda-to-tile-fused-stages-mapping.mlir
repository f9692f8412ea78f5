// RUN: kda-opt %kda_src_root/examples/chunk_kda_fwd.mlir --convert-chunk-fwd-to-stages=chunk-size=16 --kda-fuse-recurrence --convert-kda-to-tile=fusable-chunk-stages | FileCheck %s
// RUN: sed 's/bf16/f32/g' %kda_src_root/examples/chunk_kda_fwd.mlir | kda-opt --convert-chunk-fwd-to-stages=chunk-size=16 --kda-fuse-recurrence --convert-kda-to-tile=fusable-chunk-stages | FileCheck %s --check-prefix=F32
// RUN: kda-opt %kda_src_root/examples/chunk_kda_fwd.mlir --convert-chunk-fwd-to-stages=chunk-size=16 --kda-fuse-recurrence --convert-kda-to-tile="fusable-chunk-stages tuning-override=chunk_stages.mapping=shared_memory" | FileCheck %s --check-prefix=SHARED

// The per-chunk stages built for the recurrent forward's fused kernel
// (fusable-chunk-stages) take the mapping the target prefers for them with
// the shape of the function's chunk recurrence: the Hopper tuning puts
// them on registers where the recurrence runs on registers (K = 128 and
// bf16 here), and the exact diagonal blocks are then built by key rows
// (an scf.for over the rows j of each sub-chunk against its two halves of
// 8 rows, 2-D tiles only). With
// f32 I/O (the recurrence on shared memory) they stay on shared memory,
// and so they do when an override asks for it; the diagonal blocks are
// then the pairwise [BK, 16, 16] sums. On registers every part is capped at
// 96 registers (the tuning target's getFusedChunkStageTuning), and the
// gate's cumulative sum takes the whole K in one tile (block_k 128); the
// recurrence keeps its own 232 registers on 2 warps.

// CHECK-LABEL: func.func @chunk_kda_fwd_gate_cumsum_0
// CHECK-SAME: max_registers = 96, block_k = 128,{{.*}}mapping = registers
// CHECK-LABEL: func.func @chunk_kda_fwd_intra_diag_1
// CHECK-SAME: max_registers = 96,{{.*}}mapping = registers
// CHECK: scf.for
// CHECK: scf.for {{.*}} iter_args
// CHECK: tile.reduce add {{.*}} dim 1 : tensor<8x128xf32> -> tensor<8xf32>
// CHECK-LABEL: func.func @chunk_kda_fwd_inter_solve_2
// CHECK-SAME: max_registers = 96,{{.*}}mapping = registers
// CHECK-LABEL: func.func @chunk_kda_fwd_decay_apply_3
// CHECK-SAME: max_registers = 96,{{.*}}mapping = registers
// CHECK-LABEL: func.func @chunk_kda_fwd_chunk_recurrence_4
// CHECK-SAME: threads = 64, max_registers = 232,{{.*}}mapping = registers

// F32-LABEL: func.func @chunk_kda_fwd_intra_diag_1
// F32-NOT: mapping = registers
// F32: tile.reduce add {{.*}} dim 0 : tensor<128x16x16xf32> -> tensor<16x16xf32>
// F32-LABEL: func.func @chunk_kda_fwd_decay_apply_3
// F32-NOT: mapping = registers
// F32: func.func @chunk_kda_fwd_chunk_recurrence_4
// F32-NOT: mapping = registers

// SHARED-LABEL: func.func @chunk_kda_fwd_intra_diag_1
// SHARED-NOT: mapping = registers
// SHARED: tile.reduce add {{.*}} dim 0 : tensor<128x16x16xf32> -> tensor<16x16xf32>
// SHARED-LABEL: func.func @chunk_kda_fwd_chunk_recurrence_4
// SHARED-SAME: mapping = registers
