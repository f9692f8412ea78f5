// RUN: kda-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(gpu-extern-dynamic-shared-memory))' | FileCheck %s
// RUN: kda-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm,gpu-extern-dynamic-shared-memory))' | FileCheck %s --check-prefix=NVVM

// The zero-length shared array that gpu.dynamic_shared_memory lowers to
// becomes an external declaration (NVPTX prints `.extern .shared .b8
// name[]`); static shared arrays, zero-length arrays in other address
// spaces and arrays with an initial value stay as they are.

// CHECK-LABEL: gpu.module @globals
gpu.module @globals {
  // CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  // CHECK: llvm.mlir.global private @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f32>
  llvm.mlir.global private @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f32>
  // CHECK: llvm.mlir.global internal @global_empty() {addr_space = 1 : i32} : !llvm.array<0 x i8>
  llvm.mlir.global internal @global_empty() {addr_space = 1 : i32} : !llvm.array<0 x i8>
  // CHECK: llvm.mlir.global external @already_extern() {addr_space = 3 : i32} : !llvm.array<0 x i8>
  llvm.mlir.global external @already_extern() {addr_space = 3 : i32} : !llvm.array<0 x i8>
}

// -----

// After the GPU-to-NVVM conversion of a kernel that reads its dynamic
// shared memory.

// NVVM-LABEL: gpu.module @kernels
// NVVM: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// NVVM-LABEL: llvm.func @reads_shared
// NVVM: llvm.mlir.addressof @__dynamic_shmem__0 : !llvm.ptr<3>
gpu.module @kernels {
  gpu.func @reads_shared(%i: index, %out: memref<?xf32>) kernel {
    %shmem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %view = memref.view %shmem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    %x = memref.load %view[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %x, %out[%i] : memref<?xf32>
    gpu.return
  }
}
