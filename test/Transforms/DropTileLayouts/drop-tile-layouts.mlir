// RUN: kda-opt %s --kda-drop-tile-layouts --split-input-file | FileCheck %s
// RUN: kda-opt %s --kda-drop-tile-layouts --split-input-file | FileCheck %s --check-prefix=LLVM

// Layouts leave every tile type (results, loop-carried values, function
// types, constants); conversions between layouts go away.

#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#a = #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 2], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>

// CHECK-LABEL: func.func @kernel
// CHECK-SAME: (%[[X:.*]]: tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK-NOT: #tile.dist
// CHECK: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<16x16xf32>
// CHECK: scf.for {{.*}} iter_args(%[[S:.*]] = %[[X]]) -> (tensor<16x16xf32>)
// CHECK-NEXT: %[[N:.*]] = arith.addf %[[S]], %[[C]] : tensor<16x16xf32>
// CHECK-NEXT: scf.yield %[[N]]
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @kernel(%x: tensor<16x16xf32, #acc>) -> tensor<16x16xf32, #a>
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant dense<1.0> : tensor<16x16xf32, #acc>
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%s = %x) -> (tensor<16x16xf32, #acc>) {
    %n = arith.addf %s, %one : tensor<16x16xf32, #acc>
    scf.yield %n : tensor<16x16xf32, #acc>
  }
  %y = tile.convert_layout %sum : tensor<16x16xf32, #acc> -> tensor<16x16xf32, #a>
  return %y : tensor<16x16xf32, #a>
}

// -----

// Functions whose type is not a builtin function type (llvm.func) keep it:
// no tile tensor can appear in them.

// LLVM-LABEL: llvm.func @lowered
// LLVM-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: i64)
// LLVM: llvm.return
llvm.func @lowered(%p: !llvm.ptr, %n: i64) {
  llvm.return
}
