// RUN: kda-opt %s --kda-privatize-chunk-buffers=memory-space=workgroup --split-input-file | FileCheck %s
// RUN: kda-opt %s --kda-privatize-chunk-buffers --split-input-file | FileCheck %s --check-prefix=CPU
// RUN: not kda-opt %s --kda-privatize-chunk-buffers=memory-space=global --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: unknown memory-space 'global' (expected 'workgroup' or 'default')

// A workspace that one chunk-partitioned launch writes and reads (the gate
// cumsum of a fused per-chunk kernel): it leaves the launch and the host,
// and the kernel keeps the rows of its chunk in a [1, 64, 1, 32] buffer of
// its own, indexed from the chunk start of each stage body, rows bounded at
// end - start. The buffer the host returns stays.

// CHECK-LABEL: func.func @host(
// CHECK-NOT: memref.alloc
// CHECK: tile.launch @fused grid [%{{.*}}, %{{.*}}, %{{.*}}] args(%arg0, %arg1 : memref<1x?x4x32xf32>, memref<1x?x4x32xf32>) {tile.partition = "chunks64"}
// CHECK-LABEL: func.func @fused(
// CHECK-SAME: %[[G:[a-z0-9]+]]: memref<1x?x4x32xf32>, %[[OUT:[a-z0-9]+]]: memref<1x?x4x32xf32>)
// CHECK: %[[LOCAL:.*]] = memref.alloc() : memref<1x64x1x32xf32, #gpu.address_space<workgroup>>
// CHECK: %[[S1:.*]] = tile.chunk_start
// CHECK: %[[X:.*]] = tile.load %[[G]]
// CHECK: %[[R1:.*]] = arith.subi %[[S1]], %[[S1]] : index
// CHECK: %[[E1:.*]] = arith.subi %{{.*}}, %[[S1]] : index
// CHECK: tile.store %[[X]], %[[LOCAL]][%{{.*}}, %[[R1]], %{{.*}}, %{{.*}}] bounds [%[[E1]], %{{.*}}] dims [1, 3] : tensor<64x32xf32>, memref<1x64x1x32xf32, #gpu.address_space<workgroup>>
// CHECK: %[[S2:.*]] = tile.chunk_start
// CHECK: %[[ROW:.*]] = arith.addi %[[S2]], %{{.*}} : index
// CHECK: %[[R2:.*]] = arith.subi %[[ROW]], %[[S2]] : index
// CHECK: %[[Y:.*]] = tile.load %[[LOCAL]][%{{.*}}, %[[R2]], %{{.*}}, %{{.*}}] bounds [%{{.*}}] dims [3] : memref<1x64x1x32xf32, #gpu.address_space<workgroup>> -> tensor<32xf32>
// CHECK: tile.store %{{.*}}, %[[OUT]]

// CPU: memref.alloc() : memref<1x64x1x32xf32>
func.func @host(%g: memref<1x?x4x32xf32>, %out: memref<1x?x4x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1_0 = arith.constant 1 : index
  %t = memref.dim %g, %c1 : memref<1x?x4x32xf32>
  %G = memref.alloc(%t) : memref<1x?x4x32xf32>
  tile.launch @fused grid [%t, %c1, %c1] args(%g, %G, %out : memref<1x?x4x32xf32>, memref<1x?x4x32xf32>, memref<1x?x4x32xf32>) {tile.partition = "chunks64"}
  return
}
func.func @fused(%g: memref<1x?x4x32xf32>, %G: memref<1x?x4x32xf32>, %out: memref<1x?x4x32xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %chunk = arith.divui %pid, %c4 : index
  %head = arith.remui %pid, %c4 : index
  %row = arith.muli %chunk, %c64 : index
  %end = memref.dim %g, %c1 : memref<1x?x4x32xf32>
  // The first stage writes its chunk of G.
  %s1 = tile.chunk_start %row
  %x = tile.load %g[%c0, %s1, %head, %c0] bounds [%end, %c32] dims [1, 3] : memref<1x?x4x32xf32> -> tensor<64x32xf32>
  tile.store %x, %G[%c0, %s1, %head, %c0] bounds [%end, %c32] dims [1, 3] : tensor<64x32xf32>, memref<1x?x4x32xf32>
  // The second reads its chunk's last row.
  %s2 = tile.chunk_start %row
  %last = arith.addi %s2, %c63 : index
  %y = tile.load %G[%c0, %last, %head, %c0] bounds [%c32] dims [3] : memref<1x?x4x32xf32> -> tensor<32xf32>
  tile.store %y, %out[%c0, %last, %head, %c0] bounds [%c32] dims [3] : tensor<32xf32>, memref<1x?x4x32xf32>
  return
}

// -----

// Left alone: a second launch reads the buffer; an access spans the rows
// without a bound; no chunk start before an access; not a chunk partition.

// CHECK-LABEL: func.func @host2(
// CHECK-COUNT-4: memref.alloc(
// CHECK-NOT: memref.alloc() : memref<1x64
func.func @host2(%g: memref<1x?x4x32xf32>) {
  %c1 = arith.constant 1 : index
  %t = memref.dim %g, %c1 : memref<1x?x4x32xf32>
  %A = memref.alloc(%t) : memref<1x?x4x32xf32>
  %B = memref.alloc(%t) : memref<1x?x4x32xf32>
  %C = memref.alloc(%t) : memref<1x?x4x32xf32>
  %D = memref.alloc(%t) : memref<1x?x4x32xf32>
  tile.launch @writer grid [%t, %c1, %c1] args(%g, %A : memref<1x?x4x32xf32>, memref<1x?x4x32xf32>) {tile.partition = "chunks64"}
  tile.launch @writer grid [%t, %c1, %c1] args(%A, %g : memref<1x?x4x32xf32>, memref<1x?x4x32xf32>) {tile.partition = "chunks64"}
  tile.launch @unbounded grid [%t, %c1, %c1] args(%g, %B : memref<1x?x4x32xf32>, memref<1x?x4x32xf32>) {tile.partition = "chunks64"}
  tile.launch @unmarked grid [%t, %c1, %c1] args(%g, %C : memref<1x?x4x32xf32>, memref<1x?x4x32xf32>) {tile.partition = "chunks64"}
  tile.launch @unpartitioned grid [%t, %c1, %c1] args(%g, %D : memref<1x?x4x32xf32>, memref<1x?x4x32xf32>)
  return
}
func.func @writer(%g: memref<1x?x4x32xf32>, %A: memref<1x?x4x32xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %pid = tile.program_id x
  %s = tile.chunk_start %pid
  %x = tile.load %g[%c0, %s, %c0, %c0] bounds [%c32, %c32] dims [1, 3] : memref<1x?x4x32xf32> -> tensor<64x32xf32>
  tile.store %x, %A[%c0, %s, %c0, %c0] bounds [%c32, %c32] dims [1, 3] : tensor<64x32xf32>, memref<1x?x4x32xf32>
  return
}
func.func @unbounded(%g: memref<1x?x4x32xf32>, %B: memref<1x?x4x32xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pid = tile.program_id x
  %s = tile.chunk_start %pid
  %x = tile.load %g[%c0, %s, %c0, %c0] dims [1, 3] : memref<1x?x4x32xf32> -> tensor<64x32xf32>
  tile.store %x, %B[%c0, %s, %c0, %c0] dims [1, 3] : tensor<64x32xf32>, memref<1x?x4x32xf32>
  return
}
func.func @unmarked(%g: memref<1x?x4x32xf32>, %C: memref<1x?x4x32xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %pid = tile.program_id x
  %x = tile.load %g[%c0, %pid, %c0, %c0] bounds [%c32, %c32] dims [1, 3] : memref<1x?x4x32xf32> -> tensor<64x32xf32>
  tile.store %x, %C[%c0, %pid, %c0, %c0] bounds [%c32, %c32] dims [1, 3] : tensor<64x32xf32>, memref<1x?x4x32xf32>
  return
}
func.func @unpartitioned(%g: memref<1x?x4x32xf32>, %D: memref<1x?x4x32xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %pid = tile.program_id x
  %s = tile.chunk_start %pid
  %x = tile.load %g[%c0, %s, %c0, %c0] bounds [%c32, %c32] dims [1, 3] : memref<1x?x4x32xf32> -> tensor<64x32xf32>
  tile.store %x, %D[%c0, %s, %c0, %c0] bounds [%c32, %c32] dims [1, 3] : tensor<64x32xf32>, memref<1x?x4x32xf32>
  return
}
