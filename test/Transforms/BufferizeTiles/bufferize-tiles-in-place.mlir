// RUN: kda-opt %s --split-input-file --kda-bufferize-tiles | FileCheck %s

// A loop-carried tile scaled elementwise (into a tensor.empty init, as tile
// math lowers) and then accumulated into by a matmul stays in its one
// buffer: the scaling writes over the iter_arg, which nothing reads after
// it, so the loop yields its own iter_arg and allocates nothing per
// iteration.
// CHECK-LABEL: func.func @carried_tile
// CHECK: %[[INIT:.*]] = memref.alloc() {{.*}} : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for {{.*}} iter_args(%[[S:.*]] = %[[INIT]])
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic {{.*}} ins(%[[S]] : {{.*}}) outs(%[[S]] :
// CHECK: linalg.matmul {{.*}} outs(%[[S]] :
// CHECK: scf.yield %[[S]]
func.func @carried_tile(%a: memref<16x16xf32>, %out: memref<16x16xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %at = bufferization.to_tensor %a restrict : memref<16x16xf32> to tensor<16x16xf32>
  %e0 = tensor.empty() : tensor<16x16xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %s0) -> (tensor<16x16xf32>) {
    %e = tensor.empty() : tensor<16x16xf32>
    %scaled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%s : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
    ^bb0(%x: f32, %y: f32):
      %m = arith.mulf %x, %half : f32
      linalg.yield %m : f32
    } -> tensor<16x16xf32>
    %next = linalg.matmul ins(%at, %at : tensor<16x16xf32>, tensor<16x16xf32>) outs(%scaled : tensor<16x16xf32>) -> tensor<16x16xf32>
    scf.yield %next : tensor<16x16xf32>
  }
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<16x16xf32>, memref<16x16xf32>) -> ()
  return
}

// -----

// An input still read after the op keeps its buffer: the result gets a new
// one. A tile read in place from a kernel argument is never written over.
// The sum is the last reader of %r1 and writes over it.
// CHECK-LABEL: func.func @live_or_foreign_inputs
// CHECK: %[[R2:.*]] = memref.alloc() {{.*}} : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK: %[[T:.*]] = memref.alloc() {{.*}} : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK: linalg.fill {{.*}} outs(%[[T]] :
// CHECK: %[[R1:.*]] = memref.alloc() {{.*}} : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK: linalg.generic {{.*}} ins(%[[T]] : {{.*}}) outs(%[[R1]] :
// CHECK: linalg.generic {{.*}} ins(%arg0 : {{.*}}) outs(%[[R2]] :
// CHECK: linalg.generic {{.*}} ins(%[[R1]], %[[T]], %[[R2]] : {{.*}}) outs(%[[R1]] :
func.func @live_or_foreign_inputs(%a: memref<16x16xf32>, %out: memref<16x16xf32>) attributes {tile.kernel} {
  %one = arith.constant 1.0 : f32
  %at = bufferization.to_tensor %a restrict : memref<16x16xf32> to tensor<16x16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %t = linalg.fill ins(%one : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = math.exp %x : f32
    linalg.yield %m : f32
  } -> tensor<16x16xf32>
  %r2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%at : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = math.exp %x : f32
    linalg.yield %m : f32
  } -> tensor<16x16xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%r1, %t, %r2 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %w: f32):
    %s1 = arith.addf %x, %y : f32
    %s2 = arith.addf %s1, %z : f32
    linalg.yield %s2 : f32
  } -> tensor<16x16xf32>
  bufferization.materialize_in_destination %sum in restrict writable %out : (tensor<16x16xf32>, memref<16x16xf32>) -> ()
  return
}
