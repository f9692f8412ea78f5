// RUN: kda-opt %s --convert-tile-to-cpu | FileCheck %s

// The grid becomes loops calling the kernel with its program id and the
// grid size; tile temporaries go on the stack; host entries get a C
// interface for the ExecutionEngine.

// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[IN:.*]]: memref<?x32xf32>, %[[N:.*]]: index) attributes {kda.entry, llvm.emit_c_interface}
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK: scf.for %[[Z:.*]] = %[[C0]] to %[[C3]] step %{{.*}} {
// CHECK-NEXT: scf.for %[[Y:.*]] = %[[C0]] to %[[C1]] step %{{.*}} {
// CHECK-NEXT: scf.for %[[X:.*]] = %[[C0]] to %[[N]] step %{{.*}} {
// CHECK-NEXT: func.call @kernel(%[[IN]], %[[X]], %[[Y]], %[[Z]], %[[N]], %[[C1]], %[[C3]])
// CHECK: func.func private @kernel(%[[A:.*]]: memref<?x32xf32>, %[[PX:.*]]: index, %[[PY:.*]]: index, %[[PZ:.*]]: index, %[[GX:.*]]: index, %[[GY:.*]]: index, %[[GZ:.*]]: index)
// CHECK-NOT: tile.kernel
// CHECK: %[[T:.*]] = memref.alloca() : memref<16x32xf32>
// CHECK: arith.addi %[[PX]], %[[GZ]] : index
func.func @host(%in: memref<?x32xf32>, %n: index) attributes {kda.entry} {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  tile.launch @kernel grid [%n, %c1, %c3] args(%in : memref<?x32xf32>)
  return
}
func.func @kernel(%a: memref<?x32xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  %pid = tile.program_id x
  %nz = tile.num_programs z
  %t = memref.alloc() : memref<16x32xf32>
  %s = arith.addi %pid, %nz : index
  %c0 = arith.constant 0 : index
  %v = memref.load %t[%s, %c0] : memref<16x32xf32>
  memref.store %v, %a[%s, %c0] : memref<?x32xf32>
  return
}
