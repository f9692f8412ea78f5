// RUN: kda-opt %s --kda-assign-tile-layouts --convert-tile-to-simt --canonicalize --cse | FileCheck %s
// Without two stages the tile is loaded in the trip that reads it.
// RUN: sed 's/, stages = 2//' %s | kda-opt --kda-assign-tile-layouts --convert-tile-to-simt --canonicalize --cse | FileCheck %s --check-prefix=ONE
// The pass's prefetch option does the same for every kernel.
// RUN: sed 's/, stages = 2//' %s | kda-opt --kda-assign-tile-layouts "--convert-tile-to-simt=prefetch=true" --canonicalize --cse | FileCheck %s

// A register tile read at rows 64 i of trip i (a kernel with two stages):
// loaded one trip ahead as a loop-carried value.
// - Before the loop, when it runs at all (0 < n), trip 0's tile; zeros
//   otherwise. Each lane holds 16 elements (vector<16xf32>).
// - In the loop, the load reads the rows of trip min(i + 1, n - 1) as
//   i + 1 < n ? i + 1 : i (the last trip reloads its own rows, so no row
//   outside the trips is read), and its tile is yielded for the next trip;
//   the sum reads the carried tile.
// CHECK-LABEL: func.func @register_tiles
// CHECK-DAG: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: %[[ANY:.*]] = arith.cmpi sgt, %[[N:.*]], %c0 : index
// CHECK: %[[FIRST:.*]] = scf.if %[[ANY]] -> (vector<16xf32>) {
// CHECK: llvm.load
// CHECK: scf.yield %[[ZEROS]] : vector<16xf32>
// CHECK-NEXT: }
// CHECK: scf.for %[[I:.*]] = %c0 to %[[N]] step %c1 iter_args(%[[ACC:.*]] = %[[ZEROS]], %[[TILE:.*]] = %[[FIRST]]) -> (vector<16xf32>, vector<16xf32>) {
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[I]], %c1 : index
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[N]] : index
// CHECK-NEXT: %[[TRIP:.*]] = arith.select %[[MORE]], %[[NEXT]], %[[I]] : index
// CHECK-NEXT: arith.muli %[[TRIP]], %c64 : index
// CHECK: %[[LOADED:.*]] = scf.if
// CHECK: llvm.load
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[TILE]] : vector<16xf32>
// CHECK-NEXT: scf.yield %[[SUM]], %[[LOADED]] : vector<16xf32>, vector<16xf32>
// ONE-LABEL: func.func @register_tiles
// ONE-NOT: scf.if
// ONE: scf.for %{{.*}} iter_args(%{{.*}}) -> (vector<16xf32>) {
// ONE: llvm.load
// ONE: arith.addf
func.func @register_tiles(%v: memref<?x32xf32>, %out: memref<64x32xf32>, %rows: index, %n: index)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128, stages = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<64x32xf32>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) {
    %r = arith.muli %i, %c64 : index
    %vt = tile.load %v[%r, %c0] bounds [%rows, %c32] dims [0, 1] : memref<?x32xf32> -> tensor<64x32xf32>
    %sum = arith.addf %acc, %vt : tensor<64x32xf32>
    scf.yield %sum : tensor<64x32xf32>
  }
  tile.store %s, %out[%c0, %c0] dims [0, 1] : tensor<64x32xf32>, memref<64x32xf32>
  return
}

// Tiles that stay where they are: one read at the same rows on every trip
// (nothing to gain), and one from a buffer the loop also stores into (the
// next trip's tile could be the one this trip writes).
// CHECK-LABEL: func.func @not_prefetched
// CHECK-NOT: scf.if
// CHECK: scf.for %{{.*}} iter_args(%{{.*}}) -> (vector<16xf32>) {
func.func @not_prefetched(%v: memref<64x32xf32>, %w: memref<?x32xf32>, %out: memref<64x32xf32>, %rows: index, %n: index)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128, stages = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<64x32xf32>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) {
    %r = arith.muli %i, %c64 : index
    %vt = tile.load %v[%c0, %c0] dims [0, 1] : memref<64x32xf32> -> tensor<64x32xf32>
    %wt = tile.load %w[%r, %c0] bounds [%rows, %c32] dims [0, 1] : memref<?x32xf32> -> tensor<64x32xf32>
    %sum = arith.addf %acc, %vt : tensor<64x32xf32>
    %sum2 = arith.addf %sum, %wt : tensor<64x32xf32>
    %r2 = arith.addi %r, %c64 : index
    tile.store %sum2, %w[%r2, %c0] bounds [%rows, %c32] dims [0, 1] : tensor<64x32xf32>, memref<?x32xf32>
    scf.yield %sum2 : tensor<64x32xf32>
  }
  tile.store %s, %out[%c0, %c0] dims [0, 1] : tensor<64x32xf32>, memref<64x32xf32>
  return
}
