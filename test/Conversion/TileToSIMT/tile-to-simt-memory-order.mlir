// RUN: kda-opt %s --split-input-file --convert-tile-to-simt | FileCheck %s

// A tile program is sequential, but on registers the threads that store an
// element are not those that load it back: a load of what an earlier store
// wrote (and a store over what an earlier load read) waits at a barrier of
// the block. Accesses that provably touch different elements (boxes apart
// along a dimension, also across loop trips) need none.

#acc = #tile.dist<warps = [1, 2], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#rows = #tile.dist<warps = [2, 1], batch = [1, 1], outer = [1, 1], lanes = [8, 4], elems = [1, 4], lane_strides = [4, 1], warp_strides = [1, 1]>

// Store, then load it back in another layout (read after write): a barrier
// between them. The last store writes %a, which the first load read
// (write after read), but the barrier already separates them.
// CHECK-LABEL: func.func @read_after_write
// CHECK: memref.load %arg0
// CHECK: memref.store {{.*}}, %arg1
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: memref.load %arg1
// CHECK-NOT: gpu.barrier
// CHECK: memref.store {{.*}}, %arg0
// CHECK-NOT: gpu.barrier
// CHECK: return
func.func @read_after_write(%a: memref<16x16xf32>, %b: memref<16x16xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc>
  tile.store %x, %b[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #acc>, memref<16x16xf32>
  %y = tile.load %b[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #rows>
  tile.store %y, %a[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #rows>, memref<16x16xf32>
  return
}

// -----

#acc = #tile.dist<warps = [1, 2], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#rows = #tile.dist<warps = [2, 1], batch = [1, 1], outer = [1, 1], lanes = [8, 4], elems = [1, 4], lane_strides = [4, 1], warp_strides = [1, 1]>

// Load, then store over it (write after read): a barrier before the store.
// CHECK-LABEL: func.func @write_after_read
// CHECK: memref.load %arg0
// CHECK: gpu.barrier
// CHECK: memref.store {{.*}}, %arg0
func.func @write_after_read(%a: memref<16x16xf32>, %b: memref<16x16xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  %c0 = arith.constant 0 : index
  %x = tile.load %a[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc>
  %y = arith.addf %x, %x : tensor<16x16xf32, #acc>
  tile.store %y, %a[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #acc>, memref<16x16xf32>
  return
}

// -----

#acc = #tile.dist<warps = [1, 2], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#rows = #tile.dist<warps = [2, 1], batch = [1, 1], outer = [1, 1], lanes = [8, 4], elems = [1, 4], lane_strides = [4, 1], warp_strides = [1, 1]>

// Blocks apart along a dimension (rows r, r + 16 and r + 32 of 16; column
// blocks 0 and 16), and row blocks 16 * i in a loop of step 1 that also
// reads what the same trip wrote one block further: no barrier but the one
// between the store and the load of one trip's block.
// CHECK-LABEL: func.func @disjoint
// CHECK-NOT: gpu.barrier
// CHECK: scf.for
// CHECK: memref.store {{.*}}, %arg1
// CHECK: gpu.barrier
// CHECK: memref.load %arg1
// CHECK-NOT: gpu.barrier
// CHECK: return
func.func @disjoint(%a: memref<?x32xf32>, %b: memref<?x32xf32>, %r: index, %n: index) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %x = tile.load %a[%r, %c0] dims [0, 1] : memref<?x32xf32> -> tensor<16x16xf32, #acc>
  tile.store %x, %a[%r, %c16] dims [0, 1] : tensor<16x16xf32, #acc>, memref<?x32xf32>
  %r16 = arith.addi %r, %c16 : index
  tile.store %x, %a[%r16, %c0] dims [0, 1] : tensor<16x16xf32, #acc>, memref<?x32xf32>
  %r32 = arith.addi %r, %c32 : index
  %y = tile.load %a[%r32, %c0] dims [0, 1] : memref<?x32xf32> -> tensor<16x16xf32, #rows>
  scf.for %i = %c0 to %n step %c1 {
    %row = arith.muli %i, %c16 : index
    %at = arith.addi %r, %row : index
    tile.store %y, %b[%at, %c0] dims [0, 1] : tensor<16x16xf32, #rows>, memref<?x32xf32>
    %z = tile.load %b[%at, %c0] dims [0, 1] : memref<?x32xf32> -> tensor<16x16xf32, #acc>
    tile.store %z, %b[%at, %c16] dims [0, 1] : tensor<16x16xf32, #acc>, memref<?x32xf32>
  }
  return
}

// -----

#acc = #tile.dist<warps = [1, 2], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>

// A loop that stores the rows the next trip loads (a step of 8 rows for
// blocks of 16), and one whose store index is computed from a value the
// loop carries: a barrier at each trip's load and before its store (which
// overlaps the load), and one before each store of the second loop.
// CHECK-LABEL: func.func @across_trips
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: memref.load %arg0
// CHECK: gpu.barrier
// CHECK: memref.store
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: memref.store
func.func @across_trips(%a: memref<?x16xf32>, %n: index) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %n step %c1 {
    %row = arith.muli %i, %c8 : index
    %x = tile.load %a[%row, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32, #acc>
    %next = arith.addi %row, %c8 : index
    tile.store %x, %a[%next, %c0] dims [0, 1] : tensor<16x16xf32, #acc>, memref<?x16xf32>
  }
  %zero = arith.constant 0.0 : f32
  %t = tile.splat %zero : f32 -> tensor<16x16xf32, #acc>
  %last = scf.for %j = %c0 to %n step %c1 iter_args(%row = %c0) -> (index) {
    tile.store %t, %a[%row, %c0] dims [0, 1] : tensor<16x16xf32, #acc>, memref<?x16xf32>
    %r = arith.addi %row, %c1 : index
    scf.yield %r : index
  }
  return
}

// -----

#acc = #tile.dist<warps = [1, 2], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>

// A while loop whose rows move by 8 per trip: within a trip the load of
// rows r .. r + 16 and the store of rows r + 16 .. r + 32 are apart, but
// the store of one trip meets the load of the next (rows r + 8 .. r + 24 of
// the earlier trip), and the row is a value the loop carries, which says
// nothing across trips: a barrier before each trip's load, none between
// the load and the store.
// CHECK-LABEL: func.func @while_trips
// CHECK: scf.while
// CHECK: do
// CHECK: gpu.barrier
// CHECK: memref.load %arg0
// CHECK-NOT: gpu.barrier
// CHECK: memref.store {{.*}}, %arg0
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
func.func @while_trips(%a: memref<?x16xf32>, %b: memref<16x16xf32>, %n: index) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %end = scf.while (%row = %c0) : (index) -> index {
    %more = arith.cmpi slt, %row, %n : index
    scf.condition(%more) %row : index
  } do {
  ^bb0(%r: index):
    %x = tile.load %a[%r, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32, #acc>
    %r16 = arith.addi %r, %c16 : index
    tile.store %x, %a[%r16, %c0] dims [0, 1] : tensor<16x16xf32, #acc>, memref<?x16xf32>
    %next = arith.addi %r, %c8 : index
    scf.yield %next : index
  }
  return
}
