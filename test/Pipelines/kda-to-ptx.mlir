// RUN: kda-opt %s --kda-to-ptx-pipeline | FileCheck %s
// RUN: kda-opt %s --kda-to-ptx-pipeline="chip=sm_90a format=llvm" | FileCheck %s --check-prefix=LLVM
// RUN: kda-opt %s --kda-to-linalg-pipeline | FileCheck %s --check-prefix=LINALG

// The whole GPU pipeline: the host function keeps the launch plan as
// gpu.launch_func, and the kernels end up as PTX in a gpu.binary.

// CHECK-LABEL: func.func @gate_cumsum
// CHECK-SAME: kda.entry
// CHECK: gpu.launch_func @gate_cumsum_gate_cumsum_0_module::@gate_cumsum_gate_cumsum_0 blocks in ({{.*}}) threads in ({{.*}}) args(
// CHECK: gpu.binary @gate_cumsum_gate_cumsum_0_module [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "{{.*}}.visible .entry gate_cumsum_gate_cumsum_0(

// LLVM: gpu.binary @gate_cumsum_gate_cumsum_0_module [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, {{.*}}offload = "

// LINALG-LABEL: func.func @gate_cumsum_gate_cumsum_0
// LINALG-NOT: tile.load
// LINALG-NOT: tile.scan
// LINALG: tensor.pad
// LINALG: linalg.generic
// LINALG-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// LINALG: bufferization.materialize_in_destination

func.func @gate_cumsum(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}
