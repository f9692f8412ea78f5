// RUN: kda-opt %s --split-input-file --kda-hoist-tile-loads | FileCheck %s

// A load moves up past compute to the start of its block (here a loop
// body, whose induction variable it uses), and loads keep their order.
// CHECK-LABEL: func.func @loop_body
// CHECK: scf.for %[[I:[a-z0-9]+]] =
// CHECK-NEXT: %[[A:.*]] = tile.load %arg0[%[[I]], %c0]
// CHECK-NEXT: %[[B:.*]] = tile.load %arg1[%[[I]], %c0]
// CHECK-NEXT: math.exp2 %[[A]]
// CHECK-NEXT: arith.addf
func.func @loop_body(%a: memref<?x16xf32>, %b: memref<?x16xf32>, %out: memref<16x16xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : f32 -> tensor<16x16xf32>
  %sum = scf.for %i = %c0 to %c64 step %c16 iter_args(%acc = %init) -> (tensor<16x16xf32>) {
    %x = tile.load %a[%i, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
    %e = math.exp2 %x : tensor<16x16xf32>
    %y = tile.load %b[%i, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
    %s = arith.addf %e, %y : tensor<16x16xf32>
    %n = arith.addf %acc, %s : tensor<16x16xf32>
    scf.yield %n : tensor<16x16xf32>
  }
  tile.store %sum, %out[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}

// -----

// A load stops right after the definition of an operand or a store into
// the buffer it reads, and never moves out of or over a region: the load
// after the loop stays after it.
// CHECK-LABEL: func.func @stops
// CHECK: %[[R:.*]] = arith.addi
// CHECK-NEXT: tile.load %arg0[%[[R]], %c0]
// CHECK-NEXT: math.exp2
// CHECK: tile.store %{{.*}}, %arg1
// CHECK-NEXT: tile.load %arg1
// CHECK: scf.for
// CHECK: }
// CHECK-NEXT: tile.load %arg2
func.func @stops(%a: memref<?x16xf32>, %b: memref<?x16xf32>, %c: memref<?x16xf32>, %out: memref<?x16xf32>, %r: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %t = tile.splat %one : f32 -> tensor<16x16xf32>
  %row = arith.addi %r, %c16 : index
  %e = math.exp2 %t : tensor<16x16xf32>
  %x = tile.load %a[%row, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
  tile.store %x, %b[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<?x16xf32>
  %s = arith.addf %e, %x : tensor<16x16xf32>
  %y = tile.load %b[%c16, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    tile.store %s, %out[%i, %c0] dims [0, 1] : tensor<16x16xf32>, memref<?x16xf32>
  }
  %z = tile.load %c[%c0, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
  %w = arith.addf %y, %z : tensor<16x16xf32>
  tile.store %w, %out[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<?x16xf32>
  return
}

// -----

// Kernel arguments do not overlap: a load moves past a store into another
// argument, not past one into its own.
// CHECK-LABEL: func.func @other_argument
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0
// CHECK-NEXT: tile.load %arg0
// CHECK-NEXT: tile.store %arg2, %arg1
// CHECK-NEXT: tile.store %arg2, %arg0
// CHECK-NEXT: tile.load %arg0
func.func @other_argument(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %t: tensor<16x16xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  tile.store %t, %b[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  %x = tile.load %a[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  tile.store %t, %a[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  %y = tile.load %a[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  %s = arith.addf %x, %y : tensor<16x16xf32>
  tile.store %s, %b[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}

// -----

// Functions that are not tile kernels are left alone.
// CHECK-LABEL: func.func @host
// CHECK: math.exp2
// CHECK-NEXT: tile.load
func.func @host(%a: memref<16x16xf32>, %t: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %e = math.exp2 %t : tensor<16x16xf32>
  %x = tile.load %a[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  return %e, %x : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// A kernel whose tile.tuning sets max_live_bytes: each tile here is 1024 bytes, the
// budget 2560. %y moves above the exp2 of %x (live there: %x and the
// result, 2048 bytes, +1024 is over), so it stops after it; with no
// budget it would move to the top.
// CHECK-LABEL: func.func @budget
// CHECK: %[[X:.*]] = tile.load %arg0
// CHECK-NEXT: %[[E:.*]] = math.exp2 %[[X]]
// CHECK-NEXT: %[[Y:.*]] = tile.load %arg1
// CHECK-NEXT: arith.addf %[[E]], %[[Y]]
func.func @budget(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %out: memref<16x16xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128, max_live_bytes = 2560>} {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  %e = math.exp2 %x : tensor<16x16xf32>
  %y = tile.load %b[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  %s = arith.addf %e, %y : tensor<16x16xf32>
  tile.store %s, %out[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}

// -----

// The same kernel with room for all three tiles: the load moves up.
// CHECK-LABEL: func.func @within_budget
// CHECK: tile.load %arg0
// CHECK-NEXT: tile.load %arg1
// CHECK-NEXT: math.exp2
func.func @within_budget(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %out: memref<16x16xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128, max_live_bytes = 3072>} {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  %e = math.exp2 %x : tensor<16x16xf32>
  %y = tile.load %b[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  %s = arith.addf %e, %y : tensor<16x16xf32>
  tile.store %s, %out[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}

// -----

// A load of the next iteration's tile (yielded in place of an iter_arg)
// stays after the last use of the tile it replaces, not at the top of the
// body: the two then need one buffer, and the copy runs under the rest of
// the iteration. The load of the other tile still moves up.
// CHECK-LABEL: func.func @next_iteration_tile
// CHECK: scf.for %[[I:[a-z0-9]+]] = {{.*}} iter_args(%[[CUR:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}})
// CHECK-NEXT: %[[B:.*]] = tile.load %arg1[%[[I]], %c0]
// CHECK-NEXT: %[[NEXT_ROW:.*]] = arith.addi %[[I]], %c16
// CHECK-NEXT: %[[E:.*]] = math.exp2 %[[CUR]]
// CHECK-NEXT: %[[NEXT:.*]] = tile.load %arg0[%[[NEXT_ROW]], %c0]
// CHECK-NEXT: arith.addf %[[E]], %[[B]]
// CHECK: scf.yield %[[NEXT]],
func.func @next_iteration_tile(%a: memref<?x16xf32>, %b: memref<?x16xf32>, %out: memref<16x16xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : f32 -> tensor<16x16xf32>
  %first = tile.load %a[%c0, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
  %r:2 = scf.for %i = %c0 to %c64 step %c16 iter_args(%cur = %first, %acc = %init) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
    %next_row = arith.addi %i, %c16 : index
    %e = math.exp2 %cur : tensor<16x16xf32>
    %y = tile.load %b[%i, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
    %next = tile.load %a[%next_row, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
    %s = arith.addf %e, %y : tensor<16x16xf32>
    %n = arith.addf %acc, %s : tensor<16x16xf32>
    scf.yield %next, %n : tensor<16x16xf32>, tensor<16x16xf32>
  }
  tile.store %r#1, %out[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}
