//===- GPUExternDynamicSharedMemory.cpp - dynamic shared memory as extern -===//
//
// gpu.dynamic_shared_memory lowers to an internal, zero-length array in the
// shared address space. NVPTX prints an internal shared global that only
// one kernel uses inside that kernel, as a static variable of its size, and
// a zero-length array comes out as one byte: the kernel's dynamic shared
// memory is then addressed past the end of a one-byte variable. An external
// zero-length array is printed as `.extern .shared .b8 name[]`, the PTX
// declaration of dynamic shared memory, sized by the launch.
//
//===----------------------------------------------------------------------===//

#include "kda/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::kda {
#define GEN_PASS_DEF_GPUEXTERNDYNAMICSHAREDMEMORYPASS
#include "Transforms/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;

namespace {

/// The NVVM address space of shared memory.
constexpr unsigned kSharedAddressSpace = 3;

/// True for a zero-length array in shared memory with no initial value:
/// what gpu.dynamic_shared_memory lowers to.
bool isDynamicSharedMemory(LLVM::GlobalOp global) {
  auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
  return array && array.getNumElements() == 0 &&
         global.getAddrSpace() == kSharedAddressSpace &&
         !global.getValueOrNull() && !global.getInitializerBlock();
}

struct GPUExternDynamicSharedMemoryPass
    : kda::impl::GPUExternDynamicSharedMemoryPassBase<
          GPUExternDynamicSharedMemoryPass> {
  void runOnOperation() override {
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      if (isDynamicSharedMemory(global))
        global.setLinkage(LLVM::Linkage::External);
    }
  }
};

} // namespace
