// A program written directly in the tile DSL: C = A * B for 64x64 f32
// matrices, one 16x16 output tile per program, K in steps of 32, on tf32
// tensor cores (operands rounded to tf32, fp32 accumulation). The host
// function is the launch plan; `kda.num_inputs` says which arguments are
// inputs, so it can be bundled and run with kda-run (--no-check, with
// --inputs/--outputs .npy files).
//
//   kda-translate examples/tile_dot_tf32.mlir --kda-to-ptx | grep mma.sync
//   kda-translate examples/tile_dot_tf32.mlir --kda-to-bundle -o dot.kdab

func.func @matmul(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>)
    attributes {kda.entry, kda.num_inputs = 2 : i64} {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  tile.launch @matmul_tile grid [%c16, %c1, %c1]
      args(%a, %b, %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>)
  return
}

func.func @matmul_tile(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %pm = arith.divui %pid, %c4 : index
  %pn = arith.remui %pid, %c4 : index
  %row = arith.muli %pm, %c16 : index
  %col = arith.muli %pn, %c16 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : f32 -> tensor<16x16xf32>
  %acc = scf.for %k = %c0 to %c64 step %c32 iter_args(%sum = %init) -> (tensor<16x16xf32>) {
    %ta = tile.load %a[%row, %k] dims [0, 1] : memref<64x64xf32> -> tensor<16x32xf32>
    %tb = tile.load %b[%k, %col] dims [0, 1] : memref<64x64xf32> -> tensor<32x16xf32>
    %next = tile.dot %ta, %tb, %sum precision = tf32
        : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
    scf.yield %next : tensor<16x16xf32>
  }
  tile.store %acc, %c[%row, %col] dims [0, 1] : tensor<16x16xf32>, memref<64x64xf32>
  return
}
