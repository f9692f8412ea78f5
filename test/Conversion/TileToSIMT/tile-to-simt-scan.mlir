// RUN: kda-opt %s --convert-tile-to-simt --canonicalize --cse | FileCheck %s

// tile.scan on register tiles (SIMTScan.cpp).

// 64 rows over 4 warps (warp stride 1), 8 register blocks (batch), 2 lanes
// (lane stride 16), one element per lane: row = ((w * 8 + b) * 2 + l).
// Each register is a segment of its own. Per column and block: the lane
// scan (a shuffle up by 16 from lane l >= 1), the lane before (a shuffle up
// by 16, the identity in lane 0), the block total from the last lane (an
// indexed shuffle), the running total of the blocks before; then the
// warps' totals through shared memory, combined for the warps before.
#rows = #tile.dist<warps = [4, 1], batch = [8, 1], outer = [1, 1], lanes = [2, 16], elems = [1, 2], lane_strides = [16, 1], warp_strides = [1, 4]>
// CHECK-LABEL: func.func @scan_rows
// CHECK-NOT: gpu.shuffle xor
// CHECK: gpu.shuffle up %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: arith.cmpi uge
// CHECK: gpu.shuffle up %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle idx
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<4x32xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[SCRATCH]][%c0,
// CHECK: memref.load %[[SCRATCH]][%c1,
// CHECK: memref.load %[[SCRATCH]][%c2,
// CHECK-NOT: memref.load %[[SCRATCH]][%c3,
// CHECK: return
func.func @scan_rows(%x: memref<64x32xf32>, %y: memref<64x32xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<64x32xf32> -> tensor<64x32xf32, #rows>
  %s = tile.scan add %t dim 0 : tensor<64x32xf32, #rows>
  tile.store %s, %y[%c0, %c0] dims [0, 1] : tensor<64x32xf32, #rows>, memref<64x32xf32>
  return
}

// Along dimension 1 of the mma.sync accumulator (one warp): each lane holds
// 2 consecutive columns (elems), 4 lanes (stride 1) and 2 blocks of 8
// columns (batch) along the row; no warps along it, so no shared memory.
// In registers first: the second element of each pair adds the first.
#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
// CHECK-LABEL: func.func @scan_columns
// CHECK: arith.maximumf
// CHECK: gpu.shuffle up %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle up %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: gpu.shuffle up %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle idx
// CHECK-NOT: memref.alloc
// CHECK-NOT: gpu.barrier
// CHECK: return
func.func @scan_columns(%x: memref<16x16xf32>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc>
  %s = tile.scan max %t dim 1 : tensor<16x16xf32, #acc>
  tile.store %s, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #acc>, memref<16x16xf32>
  return
}

// A reverse scan of the same rows: shuffles down, the lane after (a
// shuffle down by 16, the identity in the last lane along the rows), the
// group's total from its first lane, and the warps after this one's.
// CHECK-LABEL: func.func @reverse_scan_rows
// CHECK-NOT: gpu.shuffle up
// CHECK: gpu.shuffle down %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: arith.cmpi ult
// CHECK: gpu.shuffle down %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle idx
// CHECK: %[[RSCRATCH:.*]] = memref.alloc() : memref<4x32xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: memref.load %[[RSCRATCH]][%c3,
// CHECK: memref.load %[[RSCRATCH]][%c2,
// CHECK: memref.load %[[RSCRATCH]][%c1,
// CHECK-NOT: memref.load %[[RSCRATCH]][%c0,
// CHECK: return
func.func @reverse_scan_rows(%x: memref<64x32xf32>, %y: memref<64x32xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<64x32xf32> -> tensor<64x32xf32, #rows>
  %s = tile.scan add %t dim 0 reverse : tensor<64x32xf32, #rows>
  tile.store %s, %y[%c0, %c0] dims [0, 1] : tensor<64x32xf32, #rows>, memref<64x32xf32>
  return
}
