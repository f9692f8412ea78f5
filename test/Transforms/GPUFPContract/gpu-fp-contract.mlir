// RUN: kda-opt %s --pass-pipeline='builtin.module(gpu.module(gpu-fp-contract))' | FileCheck %s
// RUN: kda-opt %s --pass-pipeline='builtin.module(gpu.module(gpu-fp-contract),convert-arith-to-llvm)' | FileCheck %s --check-prefix=LLVM

// Float adds, subtracts and multiplies in a GPU module get the `contract`
// flag (kept beside flags they already have, scalar or vector); other ops,
// integer arithmetic and code outside GPU modules are left alone. The
// arith-to-LLVM conversion carries the flag over.

// CHECK-LABEL: gpu.module @kernels
gpu.module @kernels {
  // CHECK-LABEL: gpu.func @products
  gpu.func @products(%a: f32, %b: f32, %c: f32, %v: vector<4xf32>, %i: i32) kernel {
    // CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
    // LLVM: llvm.fmul %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32
    %p = arith.mulf %a, %b : f32
    // CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
    // LLVM: llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32
    %s = arith.addf %p, %c : f32
    // CHECK: arith.subf %{{.*}}, %{{.*}} fastmath<nnan,contract> : f32
    %d = arith.subf %s, %a fastmath<nnan> : f32
    // CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : vector<4xf32>
    %w = arith.mulf %v, %v : vector<4xf32>
    // CHECK: arith.divf %{{.*}}, %{{.*}} : f32
    %q = arith.divf %d, %b : f32
    // CHECK: arith.muli %{{.*}}, %{{.*}} : i32
    %m = arith.muli %i, %i : i32
    gpu.return
  }
}

// CHECK-LABEL: func.func @host
func.func @host(%a: f32, %b: f32) -> f32 {
  // CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
  %p = arith.mulf %a, %b : f32
  return %p : f32
}
