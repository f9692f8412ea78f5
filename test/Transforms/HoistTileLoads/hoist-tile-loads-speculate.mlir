// RUN: kda-opt %s --split-input-file --kda-hoist-tile-loads=speculate=1 | FileCheck %s
// RUN: kda-opt %s --split-input-file --kda-hoist-tile-loads | FileCheck %s --check-prefix=NOSPEC

// With speculation, the loads of a nest of branches (one per sub-chunk
// that has rows) issue together at the top of the loop body: the row
// offsets they need (pure index arithmetic) move out of the branches
// first, then the loads follow them out. Without it each branch's load
// waits for the branch.
// CHECK-LABEL: func.func @nested_branches
// CHECK: scf.for %[[I:[a-z0-9]+]] =
// CHECK-NEXT: tile.load %arg0[%[[I]], %c0]
// CHECK-DAG: %[[R1:.*]] = arith.addi %arg3, %c16
// CHECK-DAG: %[[R2:.*]] = arith.addi %arg3, %c32
// CHECK: tile.load %arg0[%[[R1]], %[[I]]]
// CHECK-NEXT: tile.load %arg1[%[[R2]], %[[I]]]
// CHECK: scf.if
// CHECK-NOT: tile.load
// CHECK: scf.yield
// NOSPEC-LABEL: func.func @nested_branches
// NOSPEC: scf.if
// NOSPEC-NEXT: %[[R1:.*]] = tile.load %arg0
// NOSPEC: scf.if
// NOSPEC-NEXT: tile.load %arg1
func.func @nested_branches(%a: memref<?x64xf32>, %b: memref<?x64xf32>, %out: memref<16x16xf32>, %row0: index, %rows: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : f32 -> tensor<16x16xf32>
  %sum = scf.for %i = %c0 to %c64 step %c16 iter_args(%acc = %init) -> (tensor<16x16xf32>) {
    %x = tile.load %a[%i, %c0] dims [0, 1] : memref<?x64xf32> -> tensor<16x16xf32>
    %e = math.exp2 %x : tensor<16x16xf32>
    %r1 = arith.addi %row0, %c16 : index
    %has1 = arith.cmpi slt, %r1, %rows : index
    %s1 = scf.if %has1 -> (tensor<16x16xf32>) {
      %y = tile.load %a[%r1, %i] bounds [%rows, %c64] dims [0, 1] : memref<?x64xf32> -> tensor<16x16xf32>
      %p = arith.addf %e, %y : tensor<16x16xf32>
      %r2 = arith.addi %row0, %c32 : index
      %has2 = arith.cmpi slt, %r2, %rows : index
      %s2 = scf.if %has2 -> (tensor<16x16xf32>) {
        %z = tile.load %b[%r2, %i] bounds [%rows, %c64] dims [0, 1] : memref<?x64xf32> -> tensor<16x16xf32>
        %q = arith.addf %p, %z : tensor<16x16xf32>
        scf.yield %q : tensor<16x16xf32>
      } else {
        scf.yield %p : tensor<16x16xf32>
      }
      scf.yield %s2 : tensor<16x16xf32>
    } else {
      scf.yield %e : tensor<16x16xf32>
    }
    %n = arith.addf %acc, %s1 : tensor<16x16xf32>
    scf.yield %n : tensor<16x16xf32>
  }
  tile.store %sum, %out[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}

// -----

// A load stays in its branch when the branch condition tests one of its
// offsets in a dimension the load does not bound (a row past the end would
// be read out of bounds), when an operand is defined in the branch, when
// it is not at the start of the then-branch (a store into the buffer it
// reads comes first), and in an else-branch.
// CHECK-LABEL: func.func @guarded_offset
// CHECK: scf.if
// CHECK-NEXT: tile.load %arg0[%arg2, %c0] bounds [%c16] dims [1]
func.func @guarded_offset(%a: memref<?x16xf32>, %rows: index, %row: index) -> tensor<16xf32> attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<16xf32>
  %ok = arith.cmpi slt, %row, %rows : index
  %r = scf.if %ok -> (tensor<16xf32>) {
    %x = tile.load %a[%row, %c0] bounds [%c16] dims [1] : memref<?x16xf32> -> tensor<16xf32>
    scf.yield %x : tensor<16xf32>
  } else {
    scf.yield %z : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}

// -----

// CHECK-LABEL: func.func @stays
// CHECK: scf.if
// CHECK-NEXT: %[[V:.*]] = memref.load %arg2
// CHECK-NEXT: tile.load %arg0[%[[V]], %c0]
// CHECK: tile.store
// CHECK-NEXT: tile.load %arg1
// CHECK: } else {
// CHECK-NEXT: tile.load %arg0
func.func @stays(%a: memref<?x16xf32>, %b: memref<?x16xf32>, %rows: memref<1xindex>, %flag: i1, %t: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %r:2 = scf.if %flag -> (tensor<16x16xf32>, tensor<16x16xf32>) {
    %v = memref.load %rows[%c0] : memref<1xindex>
    %x = tile.load %a[%v, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
    tile.store %t, %b[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<?x16xf32>
    %y = tile.load %b[%c0, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
    scf.yield %x, %y : tensor<16x16xf32>, tensor<16x16xf32>
  } else {
    %x = tile.load %a[%c0, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
    scf.yield %x, %x : tensor<16x16xf32>, tensor<16x16xf32>
  }
  return %r#0, %r#1 : tensor<16x16xf32>, tensor<16x16xf32>
}
