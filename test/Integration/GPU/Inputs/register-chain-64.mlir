// The program of examples/register_chain.mlir on blocks of 64 rows of a
// sequence of 200, four warps per block (each takes 16 rows), so that
// column sums cross warps (a shared buffer of per-warp partials) and the
// output goes through a conversion to a coalesced layout (shared memory)
// before its store. Checked by scripts/check-register-chain.py ... 64.

// 64x64 accumulator, warps along rows.
#acc = #tile.dist<warps = [4, 1], batch = [1, 8], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 4]>
// A operands: 64x16 (X) and 64x64 (S), warps along rows.
#a16 = #tile.dist<warps = [4, 1], batch = [1, 1], outer = [2, 2], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#a64 = #tile.dist<warps = [4, 1], batch = [1, 4], outer = [2, 2], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
// B operands, every warp holding all of them: Y^T (16x64) and V (64x16).
#byt = #tile.dist<warps = [1, 1], batch = [1, 8], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 1]>
#bt = #tile.dist<warps = [1, 1], batch = [8, 1], outer = [1, 2], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#bv = #tile.dist<warps = [1, 1], batch = [4, 2], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 1]>
// The 64x16 output accumulator, and a coalesced layout for its store.
#out = #tile.dist<warps = [4, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 4]>
#blocked = #tile.dist<warps = [4, 1], batch = [1, 1], outer = [1, 1], lanes = [8, 4], elems = [2, 4], lane_strides = [4, 1], warp_strides = [1, 1]>
// Slices of #acc.
#rows = #tile.dist<warps = [4], batch = [1], outer = [2], lanes = [8], elems = [1], lane_strides = [4], warp_strides = [1]>
#cols = #tile.dist<warps = [1], batch = [8], outer = [1], lanes = [4], elems = [2], lane_strides = [1], warp_strides = [4]>

func.func @chain(%x: memref<200x16xbf16>, %y: memref<200x16xbf16>,
                 %v: memref<200x16xbf16>, %g: memref<200xf32>,
                 %o: memref<200x16xf32>, %r: memref<200xf32>, %c: memref<200xf32>)
    attributes {kda.entry, kda.num_inputs = 4 : i64} {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.launch @chain_block grid [%c4, %c1, %c1]
      args(%x, %y, %v, %g, %o, %r, %c : memref<200x16xbf16>, memref<200x16xbf16>,
           memref<200x16xbf16>, memref<200xf32>, memref<200x16xf32>, memref<200xf32>,
           memref<200xf32>)
  return
}

func.func @chain_block(%x: memref<200x16xbf16>, %y: memref<200x16xbf16>,
                       %v: memref<200x16xbf16>, %g: memref<200xf32>,
                       %o: memref<200x16xf32>, %r: memref<200xf32>,
                       %c: memref<200xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %row = arith.muli %pid, %c64 : index
  %xa = tile.load %x[%row, %c0] dims [0, 1] : memref<200x16xbf16> -> tensor<64x16xbf16, #a16>
  %yl = tile.load %y[%row, %c0] dims [0, 1] : memref<200x16xbf16> -> tensor<64x16xbf16, #bt>
  %yt = tile.trans %yl : tensor<64x16xbf16, #bt> -> tensor<16x64xbf16, #byt>
  %vb = tile.load %v[%row, %c0] dims [0, 1] : memref<200x16xbf16> -> tensor<64x16xbf16, #bv>
  %gi = tile.load %g[%row] dims [0] : memref<200xf32> -> tensor<64xf32, #rows>
  %gj = tile.load %g[%row] dims [0] : memref<200xf32> -> tensor<64xf32, #cols>

  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<64x64xf32, #acc>
  %s = tile.dot %xa, %yt, %z
      : tensor<64x16xbf16, #a16>, tensor<16x64xbf16, #byt> -> tensor<64x64xf32, #acc>
  %gib = tile.broadcast %gi dims [1] : tensor<64xf32, #rows> -> tensor<64x64xf32, #acc>
  %gjb = tile.broadcast %gj dims [0] : tensor<64xf32, #cols> -> tensor<64x64xf32, #acc>
  %dg = arith.subf %gib, %gjb : tensor<64x64xf32, #acc>
  %decay = math.exp2 %dg : tensor<64x64xf32, #acc>
  %sd = arith.mulf %s, %decay : tensor<64x64xf32, #acc>
  %lower = tile.tri_mask lower diagonal 0 : tensor<64x64xi1, #acc>
  %sm = arith.select %lower, %sd, %z : tensor<64x64xi1, #acc>, tensor<64x64xf32, #acc>

  %rs = tile.reduce add %sm dim 1 : tensor<64x64xf32, #acc> -> tensor<64xf32, #rows>
  %cs = tile.reduce add %sm dim 0 : tensor<64x64xf32, #acc> -> tensor<64xf32, #cols>
  %p = arith.truncf %sm : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
  %pa = tile.convert_layout %p : tensor<64x64xbf16, #acc> -> tensor<64x64xbf16, #a64>
  %zo = tile.splat %zero : f32 -> tensor<64x16xf32, #out>
  %out = tile.dot %pa, %vb, %zo
      : tensor<64x64xbf16, #a64>, tensor<64x16xbf16, #bv> -> tensor<64x16xf32, #out>
  %ob = tile.convert_layout %out : tensor<64x16xf32, #out> -> tensor<64x16xf32, #blocked>

  tile.store %ob, %o[%row, %c0] dims [0, 1] : tensor<64x16xf32, #blocked>, memref<200x16xf32>
  tile.store %rs, %r[%row] dims [0] : tensor<64xf32, #rows>, memref<200xf32>
  tile.store %cs, %c[%row] dims [0] : tensor<64xf32, #cols>, memref<200xf32>
  return
}
