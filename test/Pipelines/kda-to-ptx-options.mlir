// RUN: kda-opt %s --kda-to-linalg-pipeline --kda-bufferize-tiles --convert-tile-to-gpu=num-threads=256 | FileCheck %s --check-prefix=THREADS
// RUN: kda-opt %s --convert-kda-to-tile=block-k=16 | FileCheck %s --check-prefix=BLOCKK
// RUN: kda-opt %s --convert-kda-to-tile | FileCheck %s --check-prefix=DEFAULTK
// RUN: not kda-opt %s --convert-kda-to-tile=block-k=12 2>&1 | FileCheck %s --check-prefix=BADK
// RUN: not kda-opt %s --convert-kda-to-tile=block-k=-32 2>&1 | FileCheck %s --check-prefix=NEGK

// Kernels that do not say how many threads they want get the pass option's
// value; block-k sets the width of the K tiles of the gate, intra_diag and
// inter_solve kernels (0, the default: each kernel's own; a precomputed
// gate takes 64 columns). It must be 0 or a power of 2 of at least 8.

// THREADS: gpu.launch_func @gate_gate_cumsum_0_module::@gate_gate_cumsum_0
// THREADS: known_block_size = array<i32: 128, 1, 1>
// BLOCKK: arith.constant 4 : index
// BLOCKK: tile.launch @gate_gate_cumsum_0 grid [
// BLOCKK: tile.load {{.*}} -> tensor<64x16xf32>
// DEFAULTK: tile.load {{.*}} -> tensor<64x64xf32>
// BADK: error: block-k must be 0 (each kernel's default) or a power of 2 of at least 8, got 12
// NEGK: error: block-k must be 0 (each kernel's default) or a power of 2 of at least 8, got -32

func.func @gate(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}
