// RUN: kda-opt %s -split-input-file --convert-tile-to-simt -verify-diagnostics

// Every diagnostic of convert-tile-to-simt.

#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>

func.func @mixed(%x: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc>
  // expected-error @+1 {{'tile.load' op has a tile without a #tile.dist layout ('tensor<16x16xf32>') in a kernel with register tiles: give every tile of the kernel a layout, or none}}
  %u = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  return
}

// -----

#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>

// expected-error @+1 {{a kernel with register tiles runs whole warps: its tile.tuning's threads must be a multiple of 32, got 48}}
func.func @partial_warp(%x: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 48>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc>
  return
}

// -----

#acc4 = #tile.dist<warps = [4, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 4]>

func.func @too_few_warps(%x: memref<64x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op has a tile whose layout tells apart 4 warps; the kernel has 2}}
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<64x16xf32> -> tensor<64x16xf32, #acc4>
  return
}

// -----

#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>

func.func @scan_f16(%x: memref<16x16xf16>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf16> -> tensor<16x16xf16, #acc>
  // expected-error @+1 {{'tile.scan' op on register tiles scans 32-bit elements (warp shuffles), got 'f16'}}
  %s = tile.scan add %t dim 0 : tensor<16x16xf16, #acc>
  return
}

// -----

#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>

func.func @constant(%x: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc>
  // expected-error @+1 {{'arith.constant' op on register tiles must be a splat constant}}
  %k = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]]> : tensor<16x16xf32, #acc>
  %p = arith.addf %t, %k : tensor<16x16xf32, #acc>
  return
}

// -----

#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#a32 = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>

func.func @dot_f32(%x: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc>
  // expected-error @+1 {{'tile.dot' op on register tiles needs bf16 or f16 operands (mma.sync.m16n8k16) or f32 operands at tf32 or tf32x3 precision (mma.sync.m16n8k8), and an f32 accumulator, got 'f32' x 'f32' -> 'f32' at ieee precision}}
  %d = tile.dot %t, %t, %t : tensor<16x16xf32, #acc>, tensor<16x16xf32, #acc> -> tensor<16x16xf32, #acc>
  return
}

// -----

// A tf32 A operand in the accumulator layout: mma.sync.m16n8k8 reads one
// element per register.
#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>

func.func @dot_tf32_a_layout(%x: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc>
  // expected-error @+1 {{'tile.dot' op on register tiles needs A in an mma.sync A layout: the 16x8 block at (0, 0) is not where mma.sync reads it; convert A with tile.convert_layout}}
  %d = tile.dot %t, %t, %t precision = tf32 : tensor<16x16xf32, #acc>, tensor<16x16xf32, #acc> -> tensor<16x16xf32, #acc>
  return
}

// -----

#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#b = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 1]>

func.func @dot_a_layout(%x: memref<16x16xbf16>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<16x16xf32, #acc>
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xbf16> -> tensor<16x16xbf16, #b>
  // expected-error @+1 {{'tile.dot' op on register tiles needs A in an mma.sync A layout: the 16x16 block at (0, 0) is not where mma.sync reads it; convert A with tile.convert_layout}}
  %d = tile.dot %t, %t, %z : tensor<16x16xbf16, #b>, tensor<16x16xbf16, #b> -> tensor<16x16xf32, #acc>
  return
}

// -----

#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>

func.func @dot_b_layout(%x: memref<16x16xbf16>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<16x16xf32, #acc>
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xbf16> -> tensor<16x16xbf16, #acc>
  // expected-error @+1 {{'tile.dot' op on register tiles needs B in an mma.sync B layout: the 16x8 block at (0, 0) is not where mma.sync reads it; convert B with tile.convert_layout}}
  %d = tile.dot %t, %t, %z : tensor<16x16xbf16, #acc>, tensor<16x16xbf16, #acc> -> tensor<16x16xf32, #acc>
  return
}

// -----

#a = #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 2], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#b = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 1]>

func.func @dot_acc_layout(%x: memref<16x16xbf16>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %a = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xbf16> -> tensor<16x16xbf16, #a>
  %b = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xbf16> -> tensor<16x16xbf16, #b>
  %c = tile.load %y[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #b>
  // expected-error @+1 {{'tile.dot' op on register tiles needs the accumulator in an mma.sync accumulator layout (each lane holding the elements of 16x8 blocks that mma.sync writes); convert it with tile.convert_layout}}
  %d = tile.dot %a, %b, %c : tensor<16x16xbf16, #a>, tensor<16x16xbf16, #b> -> tensor<16x16xf32, #b>
  return
}

// -----

#acc4 = #tile.dist<warps = [4, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 4]>
#a1 = #tile.dist<warps = [1, 1], batch = [4, 1], outer = [2, 2], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#b = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 1]>

func.func @dot_warps(%x: memref<64x16xbf16>, %y: memref<64x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %a = tile.load %x[%c0, %c0] dims [0, 1] : memref<64x16xbf16> -> tensor<64x16xbf16, #a1>
  %b = tile.load %x[%c0, %c0] dims [0, 1] : memref<64x16xbf16> -> tensor<16x16xbf16, #b>
  %c = tile.load %y[%c0, %c0] dims [0, 1] : memref<64x16xf32> -> tensor<64x16xf32, #acc4>
  // expected-error @+1 {{'tile.dot' op on register tiles needs the operands split over warps as the accumulator is (A by its rows, B by its columns, neither along K); warp 1 holds accumulator rows/columns from (16, 0), A from (0, 0), B from (0, 0)}}
  %d = tile.dot %a, %b, %c : tensor<64x16xbf16, #a1>, tensor<16x16xbf16, #b> -> tensor<64x16xf32, #acc4>
  return
}

// -----

#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#cols = #tile.dist<warps = [1], batch = [2], outer = [1], lanes = [4], elems = [2], lane_strides = [1], warp_strides = [1]>

func.func @broadcast(%x: memref<16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %v = tile.load %x[%c0] dims [0] : memref<16xf32> -> tensor<16xf32, #cols>
  // expected-error @+1 {{'tile.broadcast' op on register tiles needs an input whose layout is a slice of the result's (every thread holding the input elements its result elements repeat); convert the input with tile.convert_layout}}
  %b = tile.broadcast %v dims [1] : tensor<16xf32, #cols> -> tensor<16x16xf32, #acc>
  return
}

// -----

#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#rows = #tile.dist<warps = [1], batch = [1], outer = [2], lanes = [8], elems = [1], lane_strides = [4], warp_strides = [1]>

func.func @reduce_bf16(%x: memref<16x16xbf16>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xbf16> -> tensor<16x16xbf16, #acc>
  // expected-error @+1 {{'tile.reduce' op on register tiles reduces 32-bit elements (warp shuffles), got 'bf16'}}
  %s = tile.reduce add %t dim 1 : tensor<16x16xbf16, #acc> -> tensor<16xbf16, #rows>
  return
}

// -----

// A K-packed tf32 A operand with B in the natural K order: the two must
// share one order.
#acc = #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#ak = #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 4], lane_strides = [4, 1], warp_strides = [1, 1]>
#b32 = #tile.dist<warps = [1, 1], batch = [2, 1], outer = [2, 1], lanes = [4, 8], elems = [1, 1], lane_strides = [1, 4], warp_strides = [1, 1]>

func.func @dot_tf32_mixed_k_order(%x: memref<16x16xf32>, %y: memref<16x8xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<16x8xf32, #acc>
  %a = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #ak>
  %b = tile.load %y[%c0, %c0] dims [0, 1] : memref<16x8xf32> -> tensor<16x8xf32, #b32>
  // expected-error @+1 {{'tile.dot' op on register tiles needs B in an mma.sync B layout: the 8x8 block at (0, 0) is not where mma.sync reads it in the K-packed order of A; convert B with tile.convert_layout}}
  %d = tile.dot %a, %b, %z precision = tf32 : tensor<16x16xf32, #ak>, tensor<16x8xf32, #b32> -> tensor<16x8xf32, #acc>
  return
}
