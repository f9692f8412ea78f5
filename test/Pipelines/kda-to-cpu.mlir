// RUN: kda-opt %s --kda-to-cpu-pipeline | FileCheck %s

// The CPU pipeline ends in the LLVM dialect: the host entry with a C
// interface for the ExecutionEngine, and the kernel called in a loop nest.

// CHECK-NOT: tile.
// CHECK-NOT: linalg.
// CHECK-LABEL: llvm.func @gate_cumsum(
// CHECK: llvm.call @gate_cumsum_gate_cumsum_0(
// CHECK-LABEL: llvm.func @_mlir_ciface_gate_cumsum(
// CHECK-LABEL: llvm.func @gate_cumsum_gate_cumsum_0(
// CHECK: llvm.alloca
// CHECK: llvm.fmul

func.func @gate_cumsum(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}
