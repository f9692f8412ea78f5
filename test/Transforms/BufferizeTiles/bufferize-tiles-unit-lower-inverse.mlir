// RUN: kda-opt %s --kda-bufferize-tiles | FileCheck %s

// tile.unit_lower_inverse bufferizes in destination style: its inputs are
// read from their buffers and each inverse is written into a buffer of its
// own (one per result, even where the inits are one tensor.empty).

// CHECK-LABEL: func.func @inverses
// CHECK-SAME: (%[[IN:[^:]*]]: memref<16x16xf32>
// CHECK-DAG: %[[X:.*]] = memref.alloc() {{.*}} : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[Y:.*]] = memref.alloc() {{.*}} : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK: tile.unit_lower_inverse ins(%[[IN]], %[[IN]] : memref<16x16xf32>, memref<16x16xf32>) outs(%[[X]], %[[Y]] : memref<16x16xf32, #gpu.address_space<workgroup>>, memref<16x16xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: ->
// CHECK: linalg.copy ins(%[[X]] : {{.*}}) outs(%{{.*}} : memref<16x16xf32>)
// CHECK: linalg.copy ins(%[[Y]] : {{.*}}) outs(%{{.*}} : memref<16x16xf32>)
func.func @inverses(%in: memref<16x16xf32>, %out0: memref<16x16xf32>, %out1: memref<16x16xf32>) attributes {tile.kernel} {
  %a = bufferization.to_tensor %in restrict : memref<16x16xf32> to tensor<16x16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %x, %y = tile.unit_lower_inverse ins(%a, %a : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e, %e : tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>, tensor<16x16xf32>
  bufferization.materialize_in_destination %x in restrict writable %out0 : (tensor<16x16xf32>, memref<16x16xf32>) -> ()
  bufferization.materialize_in_destination %y in restrict writable %out1 : (tensor<16x16xf32>, memref<16x16xf32>) -> ()
  return
}
