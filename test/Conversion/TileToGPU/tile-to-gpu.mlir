// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu | FileCheck %s

// A bufferized kernel becomes a gpu.func of 64 threads: program ids become
// block ids, shared allocations become workgroup attributions, each linalg
// op is strided over the threads and followed by a barrier, and the launch
// becomes gpu.launch_func.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: func.func @host(%[[IN:.*]]: memref<?x32xf32>, %[[OUT:.*]]: memref<?x32xf32>, %[[N:.*]]: index)
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: gpu.launch_func @kda_kernels::@scale blocks in (%[[N]], %{{.*}}, %{{.*}}) threads in (%[[C64]], %{{.*}}, %{{.*}}) args(%[[IN]] : memref<?x32xf32>, %[[OUT]] : memref<?x32xf32>)
// CHECK: gpu.module @kda_kernels
// CHECK: gpu.func @scale(%[[A:.*]]: memref<?x32xf32>, %[[B:.*]]: memref<?x32xf32>)
// CHECK-SAME: workgroup(%[[TILE:.*]] : memref<16x32xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 64, 1, 1>}
// CHECK: %[[PID:.*]] = gpu.block_id x
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[START:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[STRIDE:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: scf.for %[[I:.*]] = %[[START]] to %{{.*}} step %[[STRIDE]]
// CHECK: affine.delinearize_index %[[I]] into (16, 32)
// CHECK: memref.load
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[TILE]]
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}} : memref<16x32xf32, strided<[32, 1], offset: ?>>
// CHECK: gpu.barrier
// CHECK: gpu.return
// CHECK-NOT: func.func @scale
func.func @host(%in: memref<?x32xf32>, %out: memref<?x32xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  tile.launch @scale grid [%n, %c1, %c1] args(%in, %out : memref<?x32xf32>, memref<?x32xf32>)
  return
}
func.func @scale(%a: memref<?x32xf32>, %b: memref<?x32xf32>) attributes {tile.kernel, tile.num_threads = 64 : i64} {
  %pid = tile.program_id x
  %c16 = arith.constant 16 : index
  %row = arith.muli %pid, %c16 : index
  %tile = memref.alloc() : memref<16x32xf32, #gpu.address_space<workgroup>>
  %src = memref.subview %a[%row, 0] [16, 32] [1, 1] : memref<?x32xf32> to memref<16x32xf32, strided<[32, 1], offset: ?>>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%src : memref<16x32xf32, strided<[32, 1], offset: ?>>) outs(%tile : memref<16x32xf32, #gpu.address_space<workgroup>>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  %dst = memref.subview %b[%row, 0] [16, 32] [1, 1] : memref<?x32xf32> to memref<16x32xf32, strided<[32, 1], offset: ?>>
  linalg.copy ins(%tile : memref<16x32xf32, #gpu.address_space<workgroup>>) outs(%dst : memref<16x32xf32, strided<[32, 1], offset: ?>>)
  return
}

// -----

// Reduction dimensions run inside each thread; a reduction written with
// the reduced dimension first is interchanged so the parallel one is split.

// CHECK-LABEL: gpu.func @colsum
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[OFF:.*]] = arith.muli %[[TID]], %{{.*}} : index
// CHECK: %[[START:.*]] = arith.addi %{{.*}}, %[[OFF]] : index
// CHECK: scf.for %[[COL:.*]] = %[[START]] to %{{.*}} step %{{.*}} {
// CHECK-NEXT: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[R:.*]] = affine.apply #{{.*}}(%[[ROW]])
// CHECK: %[[C:.*]] = affine.apply #{{.*}}(%[[COL]])
// CHECK: memref.load %{{.*}}[%[[R]], %[[C]]] : memref<64x32xf32>
// CHECK: arith.addf
// CHECK: gpu.barrier
func.func @colsum(%a: memref<64x32xf32>, %b: memref<32xf32>) attributes {tile.kernel} {
  linalg.generic {indexing_maps = [affine_map<(r, c) -> (r, c)>, affine_map<(r, c) -> (c)>], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<64x32xf32>) outs(%b : memref<32xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A full reduction has no parallel loop: thread 0 runs it.

// CHECK-LABEL: gpu.func @total
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: scf.for
// CHECK: gpu.barrier
func.func @total(%a: memref<64xf32>, %b: memref<f32>) attributes {tile.kernel} {
  linalg.generic {indexing_maps = [affine_map<(r) -> (r)>, affine_map<(r) -> ()>], iterator_types = ["reduction"]}
      ins(%a : memref<64xf32>) outs(%b : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}
