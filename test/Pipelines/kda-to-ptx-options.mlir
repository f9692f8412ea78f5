// RUN: kda-opt %s --kda-to-linalg-pipeline --kda-bufferize-tiles --convert-tile-to-gpu=num-threads=256 | FileCheck %s --check-prefix=THREADS
// RUN: kda-opt %s --convert-kda-to-tile=block-k=16 | FileCheck %s --check-prefix=BLOCKK

// Kernels that do not say how many threads they want get the pass option's
// value; block-k sets the width of the gate stage's K tiles.

// THREADS: gpu.launch_func @kda_kernels::@gate_gate_cumsum_0
// THREADS: known_block_size = array<i32: 128, 1, 1>
// BLOCKK: arith.constant 4 : index
// BLOCKK: tile.launch @gate_gate_cumsum_0 grid [
// BLOCKK: tile.load {{.*}} -> tensor<64x16xf32>

func.func @gate(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}
