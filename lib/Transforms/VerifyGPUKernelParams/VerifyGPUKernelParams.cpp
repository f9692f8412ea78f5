//===- VerifyGPUKernelParams.cpp - kernel parameters PTX can pass ---------===//
//
// LLVM's NVPTX backend aborts the process on kernel parameters it cannot
// lay out (a vector<4294967296xf32> parameter: "Empty parameter types are
// not supported"), and ptxas rejects kernels whose parameters exceed 4096
// bytes. This pass turns both into diagnostics before the lowering starts.
//
//===----------------------------------------------------------------------===//

#include "kda/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::kda {
#define GEN_PASS_DEF_VERIFYGPUKERNELPARAMSPASS
#include "Transforms/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;

namespace {

/// Bytes PTX (ISA before 8.1) allows for a kernel's parameters.
constexpr uint64_t kMaxParamBytes = 4096;

/// Bytes the NVVM lowering passes for an argument of `type` (memrefs as
/// their descriptor of 8-byte words), or nullopt for types whose size is
/// unknown here (left to the lowering).
std::optional<uint64_t> paramBytes(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type))
    return 8 * (3 + 2 * static_cast<uint64_t>(memref.getRank()));
  if (isa<IndexType>(type))
    return 8;
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  if (auto vector = dyn_cast<VectorType>(type)) {
    if (vector.isScalable())
      return std::nullopt;
    std::optional<uint64_t> element = paramBytes(vector.getElementType());
    if (!element)
      return std::nullopt;
    uint64_t n = 1;
    for (int64_t d : vector.getShape()) {
      // Saturate: anything this large is rejected anyway.
      if (d > 0 && n > (uint64_t(1) << 40) / static_cast<uint64_t>(d))
        return uint64_t(1) << 40;
      n *= static_cast<uint64_t>(d);
    }
    return n * *element;
  }
  return std::nullopt;
}

struct VerifyGPUKernelParamsPass
    : kda::impl::VerifyGPUKernelParamsPassBase<VerifyGPUKernelParamsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<gpu::GPUFuncOp>()) {
      if (!func.isKernel())
        continue;
      uint64_t total = 0;
      int64_t largest = -1;
      uint64_t largestBytes = 0;
      for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
        std::optional<uint64_t> bytes = paramBytes(type);
        if (!bytes)
          continue;
        total += *bytes;
        if (*bytes > largestBytes) {
          largestBytes = *bytes;
          largest = static_cast<int64_t>(i);
        }
      }
      if (total <= kMaxParamBytes)
        continue;
      func.emitError() << "kernel '" << func.getName() << "' takes " << total
                       << " bytes of parameters (argument " << largest << ", "
                       << func.getArgumentTypes()[largest] << ", "
                       << largestBytes << "), more than the "
                       << kMaxParamBytes << " bytes PTX allows";
      return signalPassFailure();
    }
  }
};

} // namespace
