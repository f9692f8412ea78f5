// RUN: kda-opt %s --convert-tile-to-simt=num-threads=2048 -verify-diagnostics

// num-threads gives the threads of the kernels without a tile.tuning, which
// convert-tile-to-simt records as their tuning: they must fit a block.

#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>

// expected-error @+1 {{num-threads (for kernels without a tile.tuning) must be in [1, 1024], got 2048}}
func.func @too_many_threads(%x: memref<16x16xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc>
  return
}
