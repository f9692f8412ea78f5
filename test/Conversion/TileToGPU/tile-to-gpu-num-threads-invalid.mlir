// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=num-threads=2048 -verify-diagnostics

// num-threads gives the threads of the kernels without a tile.tuning (whose
// own threads its verifier keeps in range); the kernels that run it must
// fit a block.

// expected-error @+1 {{num-threads (for kernels without a tile.tuning) must be in [1, 1024], got 2048}}
func.func @too_many_threads(%a: memref<4xf32>) attributes {tile.kernel} {
  return
}

// -----

// A kernel with its own tuning does not take num-threads.
func.func @tuned(%a: memref<4xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  return
}
