//===- BufferizeTiles.cpp - one-shot bufferization of tile kernels --------===//
//
// Tile kernels take memrefs and compute on tensors; this pass turns their
// tensors into buffers. Temporaries are allocated in the requested memory
// space (GPU shared memory or plain host memory) and copies are linalg.copy
// ops, so that the grid passes can distribute or loop them like any other
// linalg op.
//
//===----------------------------------------------------------------------===//

#include "kda/Conversion/Passes.h"
#include "kda/Dialect/Tile/TileOps.h"

#include "InPlaceElementwise.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::kda {
#define GEN_PASS_DEF_KDABUFFERIZETILESPASS
#include "Conversion/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;

namespace {

struct KDABufferizeTilesPass
    : public kda::impl::KDABufferizeTilesPassBase<KDABufferizeTilesPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    std::optional<Attribute> space;
    const std::string &spaceName = memorySpace.getValue();
    if (spaceName == "workgroup") {
      space = gpu::AddressSpaceAttr::get(
          ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
    } else if (spaceName == "default") {
      space = Attribute();
    } else {
      getOperation().emitError()
          << "kda-bufferize-tiles: unknown memory-space '" << spaceName
          << "' (expected 'workgroup' or 'default')";
      return signalPassFailure();
    }

    bufferization::OneShotBufferizationOptions options;
    options.bufferizeFunctionBoundaries = false;
    options.allowReturnAllocsFromLoops = true;
    options.defaultMemorySpaceFn =
        [space](TensorType) -> std::optional<Attribute> { return space; };
    options.memCpyFn = [](OpBuilder &b, Location loc, Value from,
                          Value to) -> LogicalResult {
      linalg::CopyOp::create(b, loc, from, to);
      return success();
    };

    SmallVector<func::FuncOp> kernels;
    getOperation().walk([&](func::FuncOp func) {
      if (func->hasAttr(kda::tile::TileDialect::getKernelAttrName()))
        kernels.push_back(func);
    });
    for (func::FuncOp kernel : kernels) {
      kda::reuseDeadInputsAsInits(kernel);
      bufferization::BufferizationState state;
      if (failed(bufferization::runOneShotBufferize(kernel, options, state))) {
        kernel.emitError("could not bufferize tile kernel");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
