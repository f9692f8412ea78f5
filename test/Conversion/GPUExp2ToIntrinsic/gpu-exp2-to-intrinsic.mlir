// RUN: kda-opt %s --pass-pipeline='builtin.module(gpu.module(convert-gpu-exp2-to-intrinsic))' | FileCheck %s

// f32 exp2 in a GPU module becomes the ex2.approx.ftz intrinsic, on a 1-D
// vector of f32 one call per element in order; other types, and code
// outside GPU modules, are left alone.

// CHECK-LABEL: gpu.module @kernels
gpu.module @kernels {
  // CHECK-LABEL: gpu.func @exp2s
  gpu.func @exp2s(%x: f32, %y: f64, %v: vector<4xf32>, %h: f16, %m: vector<2x2xf32>) kernel {
    // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz"(%{{.*}}) : (f32) -> f32
    %a = math.exp2 %x : f32
    // CHECK: math.exp2 %{{.*}} : f64
    %b = math.exp2 %y : f64
    // CHECK: %[[E0:.*]] = vector.extract %[[V:.*]][0] : f32 from vector<4xf32>
    // CHECK: %[[X0:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz"(%[[E0]]) : (f32) -> f32
    // CHECK: %[[R0:.*]] = vector.insert %[[X0]], %[[V]] [0] : f32 into vector<4xf32>
    // CHECK: %[[E1:.*]] = vector.extract %[[V]][1] : f32 from vector<4xf32>
    // CHECK: %[[X1:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz"(%[[E1]]) : (f32) -> f32
    // CHECK: %[[R1:.*]] = vector.insert %[[X1]], %[[R0]] [1] : f32 into vector<4xf32>
    // CHECK: %[[E2:.*]] = vector.extract %[[V]][2] : f32 from vector<4xf32>
    // CHECK: %[[X2:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz"(%[[E2]]) : (f32) -> f32
    // CHECK: %[[R2:.*]] = vector.insert %[[X2]], %[[R1]] [2] : f32 into vector<4xf32>
    // CHECK: %[[E3:.*]] = vector.extract %[[V]][3] : f32 from vector<4xf32>
    // CHECK: %[[X3:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz"(%[[E3]]) : (f32) -> f32
    // CHECK: %[[R3:.*]] = vector.insert %[[X3]], %[[R2]] [3] : f32 into vector<4xf32>
    // CHECK-NOT: math.exp2 %{{.*}} : vector<4xf32>
    %c = math.exp2 %v : vector<4xf32>
    // CHECK: math.exp2 %{{.*}} : vector<2x2xf32>
    %e = math.exp2 %m : vector<2x2xf32>
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
