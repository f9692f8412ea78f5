// RUN: kda-opt %s --convert-tile-to-gpu=max-registers=168 | FileCheck %s
// RUN: kda-opt %s --convert-tile-to-gpu | FileCheck %s --check-prefix=DEFAULT
// RUN: not kda-opt %s --convert-tile-to-gpu=max-registers=300 2>&1 | FileCheck %s --check-prefix=RANGE

// max-registers puts a register limit on every kernel (nvvm.maxnreg, which
// becomes PTX .maxnreg), over any kernel's own; by default a kernel keeps
// its own limit (the max_registers of its tile.tuning) or, without one, ptxas decides.

// CHECK: gpu.func @copy
// CHECK-SAME: nvvm.maxnreg = 168 : i32
// CHECK: gpu.func @capped
// CHECK-SAME: nvvm.maxnreg = 168 : i32
// DEFAULT: gpu.func @copy
// DEFAULT-NOT: nvvm.maxnreg
// DEFAULT: gpu.func @capped
// DEFAULT-SAME: nvvm.maxnreg = 80 : i32
// RANGE: error: convert-tile-to-gpu: max-registers must be in [0, 255] (0: ptxas decides), got 300
func.func @copy(%a: memref<16xf32>, %b: memref<16xf32>) attributes {tile.kernel} {
  linalg.copy ins(%a : memref<16xf32>) outs(%b : memref<16xf32>)
  return
}

func.func @capped(%a: memref<16xf32>, %b: memref<16xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128, max_registers = 80>} {
  linalg.copy ins(%a : memref<16xf32>) outs(%b : memref<16xf32>)
  return
}
