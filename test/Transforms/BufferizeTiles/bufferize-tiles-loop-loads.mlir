// RUN: kda-opt %s --kda-bufferize-tiles | FileCheck %s --check-prefix=GPU
// RUN: kda-opt %s --kda-bufferize-tiles=memory-space=default | FileCheck %s --check-prefix=CPU

// A tile load (a tensor.pad of the rows in range) that a loop yields as
// the next value of an iter_arg (a tile loaded an iteration ahead) is
// allocated in the requested memory space like the load before the loop
// that gives the initial value: a zero fill of the tile, then a copy of
// the rows in range into its corner. (One-shot bufferization would type
// the yielded pad with its source's global memory and reject the loop.)

// GPU-LABEL: func.func @load_ahead
// GPU: %[[FIRST:.*]] = memref.alloc() {{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>
// GPU: scf.for {{.*}} iter_args(%[[CUR:.*]] = %[[FIRST]]) -> (memref<16x32xf32, #gpu.address_space<workgroup>>)
// GPU: linalg.generic {{.*}} ins(%[[CUR]] : memref<16x32xf32, #gpu.address_space<workgroup>>)
// GPU: %[[NEXT:.*]] = memref.alloc() {{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>
// GPU: linalg.fill ins(%{{.*}} : f32) outs(%[[NEXT]] : memref<16x32xf32, #gpu.address_space<workgroup>>)
// GPU: %[[CORNER:.*]] = memref.subview %[[NEXT]][0, 0] [%{{.*}}, %{{.*}}] [1, 1]
// GPU: linalg.copy ins(%{{.*}} : memref<?x?xf32, strided<[64, 1], offset: ?>>) outs(%[[CORNER]]
// GPU: scf.yield %[[NEXT]]

// CPU-LABEL: func.func @load_ahead
// CPU: scf.for {{.*}} -> (memref<16x32xf32>)
// CPU-NOT: address_space

func.func @load_ahead(%m: memref<?x64xf32>, %out: memref<16x32xf32>, %n: index, %rows: index, %cols: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %cst = arith.constant 0.0 : f32
  %sv = memref.subview %m[0, 0] [%rows, %cols] [1, 1] : memref<?x64xf32> to memref<?x?xf32, strided<[64, 1]>>
  %t = bufferization.to_tensor %sv restrict : memref<?x?xf32, strided<[64, 1]>> to tensor<?x?xf32>
  %hr = arith.subi %c16, %rows : index
  %hc = arith.subi %c16, %cols : index
  %first = tensor.pad %t low[0, 0] high[%hr, %hc] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<?x?xf32> to tensor<16x32xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %first) -> (tensor<16x32xf32>) {
    %e = tensor.empty() : tensor<16x32xf32>
    %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%cur : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
    ^bb0(%a: f32, %b: f32):
      %y = math.exp %a : f32
      linalg.yield %y : f32
    } -> tensor<16x32xf32>
    bufferization.materialize_in_destination %x in restrict writable %out : (tensor<16x32xf32>, memref<16x32xf32>) -> ()
    %row = arith.muli %i, %c16 : index
    %sv2 = memref.subview %m[%row, 0] [%rows, %cols] [1, 1] : memref<?x64xf32> to memref<?x?xf32, strided<[64, 1], offset: ?>>
    %t2 = bufferization.to_tensor %sv2 restrict : memref<?x?xf32, strided<[64, 1], offset: ?>> to tensor<?x?xf32>
    %next = tensor.pad %t2 low[0, 0] high[%hr, %hc] {
    ^bb0(%i2: index, %j2: index):
      tensor.yield %cst : f32
    } : tensor<?x?xf32> to tensor<16x32xf32>
    scf.yield %next : tensor<16x32xf32>
  }
  return
}
