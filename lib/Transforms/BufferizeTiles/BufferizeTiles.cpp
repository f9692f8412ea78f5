//===- BufferizeTiles.cpp - one-shot bufferization of tile kernels --------===//
//
// Tile kernels take memrefs and compute on tensors; this pass turns their
// tensors into buffers. Temporaries are allocated in the requested memory
// space (GPU shared memory or plain host memory) and copies are linalg.copy
// ops, so that the grid passes can distribute or loop them like any other
// linalg op.
//
//===----------------------------------------------------------------------===//

#include "kda/Transforms/Passes.h"
#include "kda/Dialect/Tile/TileOps.h"

#include "InPlaceElementwise.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::kda {
#define GEN_PASS_DEF_KDABUFFERIZETILESPASS
#include "Transforms/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;

namespace {

/// Rewrites each zero-low-padded tensor.pad (a tile load) whose result an
/// scf.for yields as the next value of an iter_arg into a fill of a new
/// tile in `space` and an insert_slice of the loaded rows: what the pad
/// bufferizes to anyway. One-shot bufferization gives a pad the memory
/// space of its source (global memory) when it types a loop's iter_arg,
/// but allocates the pad that initializes the iter_arg in the default
/// space, and then rejects the loop; an allocation names its space.
void materializeYieldedPads(func::FuncOp kernel, Attribute space) {
  SmallVector<tensor::PadOp> pads;
  kernel.walk([&](tensor::PadOp pad) {
    if (llvm::any_of(pad->getUsers(), [](Operation *user) {
          return isa<scf::YieldOp>(user) &&
                 isa<scf::ForOp>(user->getParentOp());
        }))
      pads.push_back(pad);
  });
  for (tensor::PadOp pad : pads) {
    Value padValue = pad.getConstantPaddingValue();
    RankedTensorType type = pad.getResultType();
    if (!padValue || !type.hasStaticShape() ||
        llvm::any_of(pad.getMixedLowPad(), [](OpFoldResult low) {
          return !isConstantIntValue(low, 0);
        }))
      continue;
    OpBuilder b(pad);
    Location loc = pad.getLoc();
    Value tile = bufferization::AllocTensorOp::create(
        b, loc, type, ValueRange{}, /*copy=*/Value(), /*size_hint=*/Value(),
        space);
    Value filled = linalg::FillOp::create(b, loc, padValue, tile).result();
    Value source = pad.getSource();
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, source);
    SmallVector<OpFoldResult> zeros(type.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(type.getRank(), b.getIndexAttr(1));
    Value loaded = tensor::InsertSliceOp::create(b, loc, source, filled, zeros,
                                                 sizes, ones);
    pad.getResult().replaceAllUsesWith(loaded);
    pad.erase();
  }
}

/// The bufferization.to_tensor that `value` is, through tensor.cast ops
/// (a tile load of a whole static tile: a view of the kernel argument);
/// null otherwise.
bufferization::ToTensorOp getArgumentView(Value value) {
  while (auto cast = value.getDefiningOp<tensor::CastOp>())
    value = cast.getSource();
  return value.getDefiningOp<bufferization::ToTensorOp>();
}

/// Copies into a new tile in `space` each static view of a kernel argument
/// (a tile load that needed no padding) that initializes or is yielded to
/// an scf.for iter_arg. The loop updates its iter_arg in place, and a view
/// of a kernel argument may not be written, so one-shot bufferization
/// copies it, into an allocation in the memory space of the argument
/// (global memory), which the GPU mapping rejects; an allocation names its
/// space.
void materializeLoopArgumentViews(func::FuncOp kernel, Attribute space) {
  auto copyOf = [&](OpBuilder &b, Location loc, Value view) -> Value {
    auto type = dyn_cast<RankedTensorType>(view.getType());
    if (!type || !type.hasStaticShape())
      return {};
    return bufferization::AllocTensorOp::create(b, loc, type, ValueRange{},
                                                /*copy=*/view,
                                                /*size_hint=*/Value(), space);
  };
  kernel.walk([&](scf::ForOp loop) {
    for (OpOperand &init : loop.getInitArgsMutable()) {
      if (!getArgumentView(init.get()))
        continue;
      OpBuilder b(loop);
      if (Value copy = copyOf(b, loop.getLoc(), init.get()))
        init.set(copy);
    }
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (OpOperand &yielded : yield->getOpOperands()) {
      if (!getArgumentView(yielded.get()))
        continue;
      OpBuilder b(yield);
      if (Value copy = copyOf(b, yield.getLoc(), yielded.get()))
        yielded.set(copy);
    }
  });
}

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
      materializeYieldedPads(kernel, space ? *space : Attribute());
      materializeLoopArgumentViews(kernel, space ? *space : Attribute());
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
