// RUN: kda-opt %s --convert-tile-to-cpu --canonicalize --cse | FileCheck %s

// On the CPU, tile.unit_lower_inverse is the sequential forward
// substitution: a loop over the columns c, and in it the rows r unrolled,
// x_r = [r == c] - sum_{m < r} A[r, m] x_m with x_m in registers. Only the
// strictly lower part of A is read.

// CHECK-LABEL: func.func private @inverse
// CHECK-SAME: (%[[A:[^:]*]]: memref<4x4xf32>, %[[X:[^:]*]]: memref<4x4xf32>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: scf.for %[[C:.*]] = %c0 to %c4 step %c1 {
// CHECK: %[[D0:.*]] = arith.cmpi eq, %[[C]], %c0 : index
// CHECK: %[[X0:.*]] = arith.select %[[D0]], %[[ONE]], %[[ZERO]] : f32
// CHECK: memref.store %[[X0]], %[[X]][%c0, %[[C]]]
// CHECK: %[[D1:.*]] = arith.cmpi eq, %[[C]], %c1 : index
// CHECK: %[[I1:.*]] = arith.select %[[D1]], %[[ONE]], %[[ZERO]] : f32
// CHECK: %[[A10:.*]] = memref.load %[[A]][%c1, %c0]
// CHECK: %[[P10:.*]] = arith.mulf %[[A10]], %[[X0]] fastmath<contract> : f32
// CHECK: %[[X1:.*]] = arith.subf %[[I1]], %[[P10]] fastmath<contract> : f32
// CHECK: memref.store %[[X1]], %[[X]][%c1, %[[C]]]
// CHECK: memref.load %[[A]][%c2, %c0]
// CHECK: memref.load %[[A]][%c2, %c1]
// CHECK: memref.store %{{.*}}, %[[X]][%c2, %[[C]]]
// CHECK: memref.load %[[A]][%c3, %c0]
// CHECK: memref.load %[[A]][%c3, %c1]
// CHECK: memref.load %[[A]][%c3, %c2]
// CHECK: memref.store %{{.*}}, %[[X]][%c3, %[[C]]]
// CHECK-NEXT: }
// CHECK-NOT: tile.unit_lower_inverse
func.func @inverse(%a: memref<4x4xf32>, %x: memref<4x4xf32>) attributes {tile.kernel} {
  tile.unit_lower_inverse ins(%a : memref<4x4xf32>) outs(%x : memref<4x4xf32>)
  return
}
