// RUN: kda-opt %s --convert-tile-to-linalg --kda-bufferize-tiles --convert-tile-to-gpu --canonicalize | FileCheck %s

// tile.unit_lower_inverse on the GPU: column c of matrix b goes to thread
// (16 b + c) mod 128, which walks it by forward substitution with the
// column in registers (rows unrolled) and stores it. The two matrices'
// columns run side by side (threads 0-15 and 16-31), with no barrier
// between them or inside; the barriers around the op are those of its
// neighbours (the loads' wait before, the stores after).

// CHECK-LABEL: gpu.func @inverses
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[S0:.*]] = arith.addi %[[TID]], %c128 : index
// CHECK: %[[C0:.*]] = arith.remui %[[S0]], %c128 : index
// CHECK: scf.for %[[COL:.*]] = %[[C0]] to %c16 step %c128 {
// CHECK: memref.store %{{.*}}, %[[X:.*]][%c0, %[[COL]]]
// CHECK: memref.load %[[A:.*]][%c1, %c0]
// CHECK: memref.store %{{.*}}, %[[X]][%c1, %[[COL]]]
// CHECK: memref.load %[[A]][%c15, %c14]
// CHECK: memref.store %{{.*}}, %[[X]][%c15, %[[COL]]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[S1:.*]] = arith.addi %[[TID]], %c112 : index
// CHECK-NEXT: %[[C1:.*]] = arith.remui %[[S1]], %c128 : index
// CHECK-NEXT: scf.for %[[COL1:.*]] = %[[C1]] to %c16 step %c128 {
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %{{.*}}[%c15, %[[COL1]]]
// CHECK-NEXT: }
// CHECK: gpu.barrier
// CHECK: memref.load %[[X]]
// CHECK-NOT: tile.unit_lower_inverse
func.func @inverses(%a: memref<32x16xf32>, %out: memref<32x16xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %x = tile.load %a[%c0, %c0] dims [0, 1] : memref<32x16xf32> -> tensor<16x16xf32>
  %y = tile.load %a[%c16, %c0] dims [0, 1] : memref<32x16xf32> -> tensor<16x16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %dx, %dy = tile.unit_lower_inverse ins(%x, %y : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e, %e : tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>, tensor<16x16xf32>
  tile.store %dx, %out[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<32x16xf32>
  tile.store %dy, %out[%c16, %c0] dims [0, 1] : tensor<16x16xf32>, memref<32x16xf32>
  return
}
