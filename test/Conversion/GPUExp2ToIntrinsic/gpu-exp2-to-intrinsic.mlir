// RUN: kda-opt %s --pass-pipeline='builtin.module(gpu.module(convert-gpu-exp2-to-intrinsic))' | FileCheck %s

// Scalar f32 exp2 in a GPU module becomes the ex2.approx.ftz intrinsic; other
// types, and code outside GPU modules, are left alone.

// CHECK-LABEL: gpu.module @kernels
gpu.module @kernels {
  // CHECK-LABEL: gpu.func @exp2s
  gpu.func @exp2s(%x: f32, %y: f64, %v: vector<4xf32>, %h: f16) kernel {
    // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz"(%{{.*}}) : (f32) -> f32
    %a = math.exp2 %x : f32
    // CHECK: math.exp2 %{{.*}} : f64
    %b = math.exp2 %y : f64
    // CHECK: math.exp2 %{{.*}} : vector<4xf32>
    %c = math.exp2 %v : vector<4xf32>
    // CHECK: math.exp2 %{{.*}} : f16
    %d = math.exp2 %h : f16
    gpu.return
  }
}

// CHECK-LABEL: func.func @host
func.func @host(%x: f32) -> f32 {
  // CHECK: math.exp2 %{{.*}} : f32
  %a = math.exp2 %x : f32
  return %a : f32
}
