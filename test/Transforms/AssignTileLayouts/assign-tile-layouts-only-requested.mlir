// RUN: kda-opt %s --kda-assign-tile-layouts="only-requested=true" | FileCheck %s
// RUN: kda-opt %s --kda-assign-tile-layouts="only-requested=true remarks=true" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: kda-opt %s --kda-assign-tile-layouts | FileCheck %s --check-prefix=ALL

// With only-requested, kda-assign-tile-layouts places only the kernels whose
// target tuning asks for registers (mapping = registers in their
// tile.tuning, set by convert-kda-to-tile); the others keep the
// shared-memory mapping. Without it, every kernel that can run on registers
// gets layouts.

// REMARK-DAG: remark: @requested runs on registers
// REMARK-DAG: remark: @not_requested stays on the shared-memory mapping: its tuning does not ask for registers (only-requested)

// CHECK-LABEL: func.func @requested
// CHECK: tile.dot {{.*}} -> tensor<16x16xf32, #tile.dist<
// CHECK-LABEL: func.func @not_requested
// CHECK: tile.dot {{.*}} -> tensor<16x16xf32>
// CHECK-NOT: #tile.dist

// ALL-LABEL: func.func @requested
// ALL: tile.dot {{.*}} -> tensor<16x16xf32, #tile.dist<
// ALL-LABEL: func.func @not_requested
// ALL: tile.dot {{.*}} -> tensor<16x16xf32, #tile.dist<

func.func @requested(%x: memref<16x16xbf16>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32, mapping = registers>} {
  %c0 = arith.constant 0 : index
  %a = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xbf16> -> tensor<16x16xbf16>
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<16x16xf32>
  %d = tile.dot %a, %a, %z : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  tile.store %d, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}

func.func @not_requested(%x: memref<16x16xbf16>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %a = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xbf16> -> tensor<16x16xbf16>
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<16x16xf32>
  %d = tile.dot %a, %a, %z : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  tile.store %d, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}
