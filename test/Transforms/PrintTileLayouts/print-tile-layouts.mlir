// RUN: kda-opt %s --kda-print-tile-layouts -o /dev/null 2>&1 | FileCheck %s

// The coordinate maps of the mma.sync fragment layouts, checked against the
// PTX ISA's fragment tables ("Matrix fragments for mma.m16n8k16"), with
// g = lane / 4 and t = lane mod 4.

// f32 accumulator of one m16n8k16: c0, c1 at (g, 2t), (g, 2t + 1); c2, c3
// at (g + 8, 2t), (g + 8, 2t + 1).
// CHECK: remark: tile layout of tensor<16x8xf32, {{.*}}>: 4 registers per thread, 1 warp(s)
// CHECK-NEXT: lane 0: (0, 0) (0, 1) (8, 0) (8, 1)
// CHECK-NEXT: lane 1: (0, 2) (0, 3) (8, 2) (8, 3)
// CHECK: lane 5: (1, 2) (1, 3) (9, 2) (9, 3)
// CHECK: lane 31: (7, 6) (7, 7) (15, 6) (15, 7)
// CHECK-NEXT: warp offsets: 0: (0, 0)

// 16-bit A operand (16 x 16): a0, a1 (g, 2t..); a2, a3 (g + 8, 2t..);
// a4, a5 (g, 2t + 8..); a6, a7 (g + 8, 2t + 8..).
// CHECK: remark: tile layout of tensor<16x16xbf16, {{.*}}>: 8 registers per thread, 1 warp(s)
// CHECK: lane 5: (1, 2) (1, 3) (9, 2) (9, 3) (1, 10) (1, 11) (9, 10) (9, 11)
// CHECK: lane 30: (7, 4) (7, 5) (15, 4) (15, 5) (7, 12) (7, 13) (15, 12) (15, 13)

// 16-bit B operand (K x N = 16 x 8): b0, b1 (k = 2t, 2t + 1; n = g);
// b2, b3 (k = 2t + 8, 2t + 9; n = g).
// CHECK: remark: tile layout of tensor<16x8xbf16, {{.*}}>: 4 registers per thread, 1 warp(s)
// CHECK: lane 5: (2, 1) (3, 1) (10, 1) (11, 1)
// CHECK: lane 31: (6, 7) (7, 7) (14, 7) (15, 7)

// A 64 x 16 accumulator over 4 warps along M: two n-tiles per thread
// (registers 4-7 are the second), warps 16 rows apart.
// CHECK: remark: tile layout of tensor<64x16xf32, {{.*}}>: 8 registers per thread, 4 warp(s)
// CHECK-NEXT: lane 0: (0, 0) (0, 1) (8, 0) (8, 1) (0, 8) (0, 9) (8, 8) (8, 9)
// CHECK: warp offsets: 0: (0, 0) 1: (16, 0) 2: (32, 0) 3: (48, 0)

// Its slice along dimension 1 (row sums): the 4 lanes of a quad hold the
// same rows.
// CHECK: remark: tile layout of tensor<64xf32, {{.*}}>: 2 registers per thread, 4 warp(s)
// CHECK-NEXT: lane 0: (0) (8)
// CHECK-NEXT: lane 1: (0) (8)
// CHECK: lane 4: (1) (9)
// CHECK: lane 31: (7) (15)
// CHECK-NEXT: warp offsets: 0: (0) 1: (16) 2: (32) 3: (48)

// The result of an op is reported too.
// CHECK: remark: tile layout of tensor<16x8xbf16, {{.*}}>: 4 registers per thread, 1 warp(s)
// CHECK-NEXT: lane 0: (0, 0) (0, 1) (8, 0) (8, 1)
func.func @mma_layouts(
    %c: tensor<16x8xf32, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>>,
    %a: tensor<16x16xbf16, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 2], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>>,
    %b: tensor<16x8xbf16, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 1]>>,
    %acc: tensor<64x16xf32, #tile.dist<warps = [4, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>>,
    %rows: tensor<64xf32, #tile.dist<warps = [4], batch = [1], outer = [2], lanes = [8], elems = [1], lane_strides = [4], warp_strides = [1]>>)
    -> tensor<16x8xbf16, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>> {
  %y = tile.convert_layout %b : tensor<16x8xbf16, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 1]>> -> tensor<16x8xbf16, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>>
  return %y : tensor<16x8xbf16, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>>
}
