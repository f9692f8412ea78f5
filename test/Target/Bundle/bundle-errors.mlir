// RUN: not kda-translate %s --split-input-file --kda-to-bundle --no-cubin --no-cpu -o /dev/null 2>&1 | FileCheck %s
// RUN: not kda-translate %kda_src_root/examples/gate_cumsum.mlir --kda-to-bundle --chip bogus -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not kda-translate %kda_src_root/examples/gate_cumsum.mlir --kda-to-bundle --cuda-toolkit %t.none -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not kda-translate %kda_src_root/examples/gate_cumsum.mlir --kda-to-bundle --max-registers 256 -o /dev/null 2>&1 | FileCheck %s --check-prefix=MAXNREG

// CHIP: error: unknown GPU architecture 'bogus' (expected sm_<NN> with NN >= 50, optionally followed by 'a' or 'f', e.g. sm_90 or sm_90a)
// TOOLKIT: error: CUDA toolkit '{{.*}}.none' has no nvvm/libdevice/libdevice.10.bc
// MAXNREG: error: --max-registers must be in [0, 255] (0: ptxas decides), got 256
// MAXNREG-NOT: see current operation

// CHECK: error: a bundle holds exactly one kda function (one with kda ops, or a lowered one marked kda.entry), found 2
func.func @a(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}
func.func @b(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}

// -----

// Tile kernels without the host function that launches them: rejected
// before anything is lowered.
// CHECK: error: a bundle holds exactly one kda function (one with kda ops, or a lowered one marked kda.entry), found 0
func.func @kernel_only(%a: memref<?x64xf32>) attributes {tile.kernel} {
  return
}

// -----

// CHECK: error: the module has no kda ops or tile kernels, so there is no PTX to emit
func.func @plain(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

