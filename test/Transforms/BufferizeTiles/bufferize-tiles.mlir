// RUN: kda-opt %s --kda-bufferize-tiles | FileCheck %s --check-prefix=GPU
// RUN: kda-opt %s --kda-bufferize-tiles=memory-space=default | FileCheck %s --check-prefix=CPU
// RUN: not kda-opt %s --kda-bufferize-tiles=memory-space=bogus 2>&1 | FileCheck %s --check-prefix=BAD

// Tile temporaries go to shared memory on the GPU path and to plain memory
// on the CPU path; copies are linalg.copy so the grid passes can split them.

// GPU-LABEL: func.func @kernel
// GPU: %[[PADDED:.*]] = memref.alloc() {{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>
// GPU: linalg.map outs(%[[PADDED]]
// GPU: linalg.copy ins(%{{.*}} : memref<?x?xf32, strided<[256, 1], offset: ?>>) outs(%{{.*}} : memref<?x?xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>)
// GPU: linalg.generic
// GPU-SAME: outs(%[[PADDED]] : memref<16x32xf32, #gpu.address_space<workgroup>>)
// GPU: linalg.copy ins(%{{.*}} : memref<?x?xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>) outs(%{{.*}} : memref<?x?xf32, strided<[256, 1], offset: ?>>)
// GPU-NOT: memref.copy
// GPU-NOT: tensor.

// CPU-LABEL: func.func @kernel
// CPU: memref.alloc() {{.*}} : memref<16x32xf32>
// CPU-NOT: address_space
// CPU: linalg.copy

// BAD: kda-bufferize-tiles: unknown memory-space 'bogus' (expected 'workgroup' or 'default')


func.func @kernel(%m: memref<?x?x4x64xf32>, %out: memref<?x?x4x64xf32>, %rows: index, %cols: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %sv = memref.subview %m[%c0, %c0, %c0, %c0] [1, %rows, 1, %cols] [1, 1, 1, 1] : memref<?x?x4x64xf32> to memref<?x?xf32, strided<[256, 1], offset: ?>>
  %t = bufferization.to_tensor %sv restrict : memref<?x?xf32, strided<[256, 1], offset: ?>> to tensor<?x?xf32>
  %hr = arith.subi %rows, %rows : index
  %p = tensor.pad %t low[0, 0] high[%hr, %hr] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<?x?xf32> to tensor<16x32xf32>

  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<16x32xf32>) outs(%p : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32):
    %z = math.exp %x : f32
    linalg.yield %z : f32
  } -> tensor<16x32xf32>
  %part = tensor.extract_slice %g[0, 0] [%rows, %cols] [1, 1] : tensor<16x32xf32> to tensor<?x?xf32>
  %dv = memref.subview %out[%c0, %c0, %c0, %c0] [1, %rows, 1, %cols] [1, 1, 1, 1] : memref<?x?x4x64xf32> to memref<?x?xf32, strided<[256, 1], offset: ?>>
  bufferization.materialize_in_destination %part in restrict writable %dv : (tensor<?x?xf32>, memref<?x?xf32, strided<[256, 1], offset: ?>>) -> ()
  return
}
