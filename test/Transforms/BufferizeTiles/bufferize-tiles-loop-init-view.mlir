// RUN: kda-opt %s --kda-bufferize-tiles | FileCheck %s --check-prefix=GPU
// RUN: kda-opt %s --kda-bufferize-tiles=memory-space=default | FileCheck %s --check-prefix=CPU

// A whole static tile of a kernel argument (a load that needed no padding:
// a view) as the initial value of a loop-carried tile, as the state scan
// loads its initial state when V is one V tile: the loop updates the tile
// in place, so it starts from a copy in a tile of its own in the requested
// memory space (shared memory on the GPU), not from an allocation in the
// argument's global memory, which the GPU mapping rejects.

// GPU-LABEL: func.func @view_as_loop_init
// GPU: %[[S0:.*]] = memref.alloc() {{.*}} : memref<16x16xf32, #gpu.address_space<workgroup>>
// GPU: linalg.copy ins(%{{.*}} : memref<16x16xf32, strided<[16, 1], offset: ?>>) outs(%[[S0]] :
// GPU: scf.for {{.*}} iter_args(%{{.*}} = %[[S0]])
// GPU-NOT: memref.alloc() {{.*}} : memref<16x16xf32>
// CPU-LABEL: func.func @view_as_loop_init
// CPU: %[[S0:.*]] = memref.alloc() {{.*}} : memref<16x16xf32>
// CPU: linalg.copy ins(%{{.*}} : memref<16x16xf32, strided<[16, 1], offset: ?>>) outs(%[[S0]] :
// CPU: scf.for {{.*}} iter_args(%{{.*}} = %[[S0]])
func.func @view_as_loop_init(%h0: memref<4x16x16xf32>, %a: memref<16x16xf32>, %out: memref<16x16xf32>, %n: index, %slot: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %view = memref.subview %h0[%slot, 0, 0] [1, 16, 16] [1, 1, 1] : memref<4x16x16xf32> to memref<16x16xf32, strided<[16, 1], offset: ?>>
  %s0 = bufferization.to_tensor %view restrict : memref<16x16xf32, strided<[16, 1], offset: ?>> to tensor<16x16xf32>
  %at = bufferization.to_tensor %a restrict : memref<16x16xf32> to tensor<16x16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %s0) -> (tensor<16x16xf32>) {
    %next = linalg.matmul ins(%at, %at : tensor<16x16xf32>, tensor<16x16xf32>) outs(%s : tensor<16x16xf32>) -> tensor<16x16xf32>
    scf.yield %next : tensor<16x16xf32>
  }
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<16x16xf32>, memref<16x16xf32>) -> ()
  return
}
