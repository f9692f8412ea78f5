// RUN: kda-opt %s --kda-serialize-gpu-modules | FileCheck %s
// RUN: kda-opt %s --kda-serialize-gpu-modules --mlir-disable-threading | FileCheck %s
// RUN: kda-opt %s --kda-serialize-gpu-modules=format=llvm | FileCheck %s --check-prefix=LLVM

// Each gpu.module becomes a gpu.binary of the same name, in place and in
// order, holding the PTX of its own kernels only; the launches keep
// referring to them by name.

// CHECK-LABEL: func.func @host
// CHECK: gpu.launch_func @first_module::@first
// CHECK: gpu.launch_func @second_module::@second
// CHECK: gpu.binary @first_module [#gpu.object<#nvvm.target<chip = "sm_90">, properties = {{.*}}, assembly = "{{.*}}.entry first(
// CHECK-NOT: .entry second
// CHECK-SAME: ">]
// CHECK-NEXT: gpu.binary @second_module [#gpu.object<#nvvm.target<chip = "sm_90">, properties = {{.*}}, assembly = "{{.*}}.entry second(
// CHECK-NOT: gpu.module

// LLVM: gpu.binary @first_module [#gpu.object<#nvvm.target<chip = "sm_90">, offload = "
// LLVM: gpu.binary @second_module [#gpu.object<#nvvm.target<chip = "sm_90">, offload = "

module attributes {gpu.container_module} {
  func.func @host(%n: index) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @first_module::@first blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @second_module::@second blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  gpu.module @first_module [#nvvm.target<chip = "sm_90">] {
    llvm.func @first() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  gpu.module @second_module [#nvvm.target<chip = "sm_90">] {
    llvm.func @second() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
