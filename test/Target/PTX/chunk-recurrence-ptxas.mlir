// REQUIRES: ptxas
// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx --fuse-recurrence --fuse-chunk-kernels --chunk-size 16 -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx --fuse-recurrence --fuse-chunk-kernels --chunk-size 16 --duplicate-small-operands -o %t.dup.ptx
// RUN: FileCheck %s --check-prefix=DUP --input-file %t.dup.ptx
// RUN: %ptxas -arch=sm_90 -v %t.dup.ptx -o %t.dup.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: kda-translate %kda_src_root/examples/chunk_kda_fwd.mlir --kda-to-ptx --fuse-recurrence --fuse-chunk-kernels --chunk-size 16 --warp-shuffles -o %t.shfl.ptx
// RUN: FileCheck %s --check-prefix=SHFL --input-file %t.shfl.ptx
// RUN: %ptxas -arch=sm_90 -v %t.shfl.ptx -o %t.shfl.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// The whole forward (B dynamic, H = HV = 96, K = V = 128, bf16) in the
// recurrent two-kernel form at chunk 16: the per-chunk kernel, then the
// chunk recurrence on registers with its tuning (2 warps, at most 232 registers,
// loads a chunk ahead). Its chunk loop waits for the copies of the chunk
// once, at one barrier; the masked M and Aqk blocks reach their dots
// through shared memory (two barriers each) unless
// --duplicate-small-operands computes them in every warp (no other
// barrier). Both assemble without spills.

// CHECK-LABEL: .entry chunk_kda_fwd_chunk_recurrence_4(
// CHECK: .maxnreg 232
// CHECK-COUNT-16: movmatrix.sync.aligned.m8n8.trans.b16
// CHECK: cp.async.wait_group {{[ \t]*}}0;
// CHECK-NEXT: bar.sync
// CHECK-COUNT-4: bar.sync
// CHECK-NOT: bar.sync

// With --warp-shuffles the M and Aqk blocks, which each warp computes
// rows of, reach their dots by shuffles within the warp instead (32
// shfl.sync.idx, bf16 pairs packed in 32 bits, no other barrier).
// SHFL-LABEL: .entry chunk_kda_fwd_chunk_recurrence_4(
// SHFL: cp.async.wait_group {{[ \t]*}}0;
// SHFL-NEXT: bar.sync
// SHFL-NOT: bar.sync
// SHFL-COUNT-32: shfl.sync.idx.b32
// SHFL-NOT: shfl.sync.idx
// SHFL-NOT: bar.sync

// DUP-LABEL: .entry chunk_kda_fwd_chunk_recurrence_4(
// DUP: cp.async.wait_group {{[ \t]*}}0;
// DUP-NEXT: bar.sync
// DUP-NOT: bar.sync

// PTXAS: Compiling entry function 'chunk_kda_fwd_chunk_recurrence_4' for 'sm_90'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: Used {{[0-9]+}} registers
