// RUN: kda-opt %s --split-input-file --kda-serialize-gpu-modules -verify-diagnostics
// RUN: not kda-opt %s --split-input-file --kda-serialize-gpu-modules=format=elf 2>&1 | FileCheck %s --check-prefix=FORMAT

// FORMAT: kda-serialize-gpu-modules: unknown format 'elf' (expected isa, bin, fatbin or llvm)

module attributes {gpu.container_module} {
  // expected-error @+1 {{has no target attribute (such as #nvvm.target) to compile it for}}
  gpu.module @untargeted {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

// The other modules still compile; the one that fails is reported.
module attributes {gpu.container_module} {
  gpu.module @fine [#nvvm.target<chip = "sm_90">] {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  // expected-error @+1 {{has no target attribute (such as #nvvm.target) to compile it for}}
  gpu.module @untargeted {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

// A type LLVM IR cannot express (`index` inside an `!llvm.array`) is
// reported, not handed to the LLVM IR translation (which crashes on it).
module attributes {gpu.container_module} {
  gpu.module @index_array [#nvvm.target<chip = "sm_90">] {
    // expected-error @+1 {{'llvm.mlir.global' op has type '!llvm.array<0 x index>', which LLVM IR cannot express}}
    llvm.mlir.global external @shared() {addr_space = 3 : i32} : !llvm.array<0 x index>
  }
}
