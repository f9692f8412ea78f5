// RUN: kda-opt %s -split-input-file | kda-opt -split-input-file | FileCheck %s
// RUN: kda-opt %s -split-input-file --canonicalize | FileCheck %s --check-prefix=FOLD

// Round trip of #tile.dist layouts on tiles and of tile.convert_layout, and
// its folds.

#acc = #tile.dist<warps = [4, 1], batch = [1, 8], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#a = #tile.dist<warps = [4, 1], batch = [1, 4], outer = [2, 2], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#rows = #tile.dist<warps = [4], batch = [1], outer = [2], lanes = [8], elems = [1], lane_strides = [4], warp_strides = [1]>

// CHECK-LABEL: func.func @layouts
// CHECK-SAME: %{{.*}}: tensor<64x64xf32, #tile.dist<warps = [4, 1], batch = [1, 8], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>>
// CHECK-SAME: %{{.*}}: tensor<64xf32, #tile.dist<warps = [4], batch = [1], outer = [2], lanes = [8], elems = [1], lane_strides = [4], warp_strides = [1]>>
// CHECK: tile.convert_layout %{{.*}} : tensor<64x64xf32, #tile.dist<{{.*}}batch = [1, 8]{{.*}}>> -> tensor<64x64xf32, #tile.dist<{{.*}}batch = [1, 4], outer = [2, 2]{{.*}}>>
func.func @layouts(%x: tensor<64x64xf32, #acc>, %r: tensor<64xf32, #rows>)
    -> tensor<64x64xf32, #a> attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %y = tile.convert_layout %x : tensor<64x64xf32, #acc> -> tensor<64x64xf32, #a>
  return %y : tensor<64x64xf32, #a>
}

// -----

#acc = #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#b = #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 1]>

// A conversion to the same layout folds away; a conversion of a conversion
// converts the original tile, and back to where it started folds away too.
// FOLD-LABEL: func.func @folds
// FOLD-SAME: (%[[X:.*]]: tensor<16x8xbf16, #tile.dist
// FOLD-NEXT: %[[B:.*]] = tile.convert_layout %[[X]]
// FOLD-NEXT: return %[[X]], %[[B]]
func.func @folds(%x: tensor<16x8xbf16, #acc>)
    -> (tensor<16x8xbf16, #acc>, tensor<16x8xbf16, #b>) {
  %same = tile.convert_layout %x : tensor<16x8xbf16, #acc> -> tensor<16x8xbf16, #acc>
  %b = tile.convert_layout %same : tensor<16x8xbf16, #acc> -> tensor<16x8xbf16, #b>
  %back = tile.convert_layout %b : tensor<16x8xbf16, #b> -> tensor<16x8xbf16, #acc>
  return %back, %b : tensor<16x8xbf16, #acc>, tensor<16x8xbf16, #b>
}
