// A program written directly in the tile DSL with register layouts. For
// each block of 16 rows of a sequence of 56 (the last block is cut):
//
//   S[i, j] = (x_i . y_j) * 2^(g_i - g_j)   for j <= i, else 0
//   r_i     = sum_j S[i, j]            (row sums)
//   c_j     = sum_i S[i, j]            (column sums)
//   O       = bf16(S) V
//
// the shape of the sub-chunk blocks of the KDA forward. One warp per block;
// every tile carries a #tile.dist layout, so it lives in the warp's
// registers: the two dots are mma.sync on registers (S is the second dot's
// A operand without moving: the accumulator and A layouts put the same
// elements in the same lanes), the row and column sums are shuffles
// between the lanes that share a row or a column, and no shared memory or
// barrier is used. Layouts are written out here; the
// same program without them runs on the shared-memory mapping and on the
// CPU (kda-drop-tile-layouts).
//
//   kda-translate examples/register_chain.mlir --kda-to-ptx | grep -c mma.sync
//   kda-translate examples/register_chain.mlir --kda-to-bundle -o chain.kdab
//   python3 scripts/check-register-chain.py kda-run chain.kdab /tmp/chain 16

// The f32 accumulator of m16n8k16 for a 16x16 tile: lane l holds rows
// l/4 and l/4 + 8, columns 2(l%4), 2(l%4) + 1 and those + 8.
#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
// The 16-bit A operand (16x16, rows x K): the same lanes as #acc.
#a = #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 2], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
// The 16-bit B operand (16x16, K x columns): pairs run along K.
#b = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 1]>
// #b with its dimensions swapped (a layout of 16x16 tiles whose pairs run
// along rows' columns).
#bt = #tile.dist<warps = [1, 1], batch = [2, 1], outer = [1, 2], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
// Slices of #acc: a value per row (held by the 4 lanes of the row's quad)
// and a value per column (held by the 8 lanes with that column).
#rows = #tile.dist<warps = [1], batch = [1], outer = [2], lanes = [8], elems = [1], lane_strides = [4], warp_strides = [1]>
#cols = #tile.dist<warps = [1], batch = [2], outer = [1], lanes = [4], elems = [2], lane_strides = [1], warp_strides = [1]>

func.func @chain(%x: memref<56x16xbf16>, %y: memref<56x16xbf16>,
                 %v: memref<56x16xbf16>, %g: memref<56xf32>,
                 %o: memref<56x16xf32>, %r: memref<56xf32>, %c: memref<56xf32>)
    attributes {kda.entry, kda.num_inputs = 4 : i64} {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.launch @chain_block grid [%c4, %c1, %c1]
      args(%x, %y, %v, %g, %o, %r, %c : memref<56x16xbf16>, memref<56x16xbf16>,
           memref<56x16xbf16>, memref<56xf32>, memref<56x16xf32>, memref<56xf32>,
           memref<56xf32>)
  return
}

func.func @chain_block(%x: memref<56x16xbf16>, %y: memref<56x16xbf16>,
                       %v: memref<56x16xbf16>, %g: memref<56xf32>,
                       %o: memref<56x16xf32>, %r: memref<56xf32>,
                       %c: memref<56xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %pid = tile.program_id x
  %row = arith.muli %pid, %c16 : index
  // Rows past 56 read as 0.
  %xa = tile.load %x[%row, %c0] dims [0, 1]
      : memref<56x16xbf16> -> tensor<16x16xbf16, #a>
  // Y in the transpose of #b, so that Y^T (element (k, j) = y[row + j, k])
  // is a renaming of registers.
  %yl = tile.load %y[%row, %c0] dims [0, 1]
      : memref<56x16xbf16> -> tensor<16x16xbf16, #bt>
  %yt = tile.trans %yl : tensor<16x16xbf16, #bt> -> tensor<16x16xbf16, #b>
  %vb = tile.load %v[%row, %c0] dims [0, 1]
      : memref<56x16xbf16> -> tensor<16x16xbf16, #b>
  %gi = tile.load %g[%row] dims [0] : memref<56xf32> -> tensor<16xf32, #rows>
  %gj = tile.load %g[%row] dims [0] : memref<56xf32> -> tensor<16xf32, #cols>

  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<16x16xf32, #acc>
  %s = tile.dot %xa, %yt, %z
      : tensor<16x16xbf16, #a>, tensor<16x16xbf16, #b> -> tensor<16x16xf32, #acc>
  %gib = tile.broadcast %gi dims [1] : tensor<16xf32, #rows> -> tensor<16x16xf32, #acc>
  %gjb = tile.broadcast %gj dims [0] : tensor<16xf32, #cols> -> tensor<16x16xf32, #acc>
  %dg = arith.subf %gib, %gjb : tensor<16x16xf32, #acc>
  %decay = math.exp2 %dg : tensor<16x16xf32, #acc>
  %sd = arith.mulf %s, %decay : tensor<16x16xf32, #acc>
  %lower = tile.tri_mask lower diagonal 0 : tensor<16x16xi1, #acc>
  %sm = arith.select %lower, %sd, %z : tensor<16x16xi1, #acc>, tensor<16x16xf32, #acc>

  %rs = tile.reduce add %sm dim 1 : tensor<16x16xf32, #acc> -> tensor<16xf32, #rows>
  %cs = tile.reduce add %sm dim 0 : tensor<16x16xf32, #acc> -> tensor<16xf32, #cols>
  %p = arith.truncf %sm : tensor<16x16xf32, #acc> to tensor<16x16xbf16, #acc>
  %pa = tile.convert_layout %p : tensor<16x16xbf16, #acc> -> tensor<16x16xbf16, #a>
  %out = tile.dot %pa, %vb, %z
      : tensor<16x16xbf16, #a>, tensor<16x16xbf16, #b> -> tensor<16x16xf32, #acc>

  tile.store %out, %o[%row, %c0] dims [0, 1] : tensor<16x16xf32, #acc>, memref<56x16xf32>
  tile.store %rs, %r[%row] dims [0] : tensor<16xf32, #rows>, memref<56xf32>
  tile.store %cs, %c[%row] dims [0] : tensor<16xf32, #cols>, memref<56xf32>
  return
}
