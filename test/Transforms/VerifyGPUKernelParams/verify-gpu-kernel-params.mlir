// RUN: kda-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(kda-verify-gpu-kernel-params))' -verify-diagnostics | FileCheck %s

// Kernels whose parameters fit pass unchanged: memrefs count as their
// descriptors (here 2 x 8 x (3 + 2 * 2) = 112 bytes), scalars and small
// vectors at their size; functions that are not kernels are not checked.
// CHECK-LABEL: gpu.module @fits
// CHECK: gpu.func @k
// CHECK: gpu.func @helper
gpu.module @fits {
  gpu.func @k(%a: memref<?x64xf32>, %b: memref<?x64xf32>, %n: index, %v: vector<4xf32>) kernel {
    gpu.return
  }
  gpu.func @helper(%v: vector<4096xf32>) {
    gpu.return
  }
}

// -----

// A parameter LLVM's NVPTX backend cannot lay out (it aborted the process)
// is a diagnostic.
gpu.module @huge {
  // expected-error @+1 {{kernel 'k' takes 17179869184 bytes of parameters (argument 0, 'vector<4294967296xf32>', 17179869184), more than the 4096 bytes PTX allows}}
  gpu.func @k(%v: vector<4294967296xf32>) kernel {
    gpu.return
  }
}

// -----

gpu.module @too_many {
  // expected-error @+1 {{kernel 'k' takes 8200 bytes of parameters (argument 0, 'vector<2048xf32>', 8192), more than the 4096 bytes PTX allows}}
  gpu.func @k(%v: vector<2048xf32>, %n: i64) kernel {
    gpu.return
  }
}
