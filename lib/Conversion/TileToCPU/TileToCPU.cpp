//===- TileToCPU.cpp - tile launches as loops over the program grid -------===//
//
// The CPU path: each tile kernel receives its program id and the grid size
// as trailing index arguments, and each tile.launch becomes an scf.for nest
// over the grid calling the kernel. Tile temporaries go on the stack of the
// kernel call, so each program frees them when it returns.
//
//===----------------------------------------------------------------------===//

#include "kda/Conversion/Passes.h"
#include "kda/Dialect/KDA/KDADialect.h"
#include "kda/Dialect/Tile/TileOps.h"
#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kda {
#define GEN_PASS_DEF_CONVERTTILETOCPUPASS
#include "Conversion/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;
using namespace mlir::kda::tile;

namespace {

/// Number of index arguments appended to each kernel: program id (x, y, z)
/// then grid size (x, y, z).
constexpr unsigned kGridArgs = 6;

/// Appends the grid arguments to `kernel` and replaces program ids, grid
/// sizes and heap allocations.
LogicalResult convertKernel(func::FuncOp kernel) {
  Block &entry = kernel.getBody().front();
  MLIRContext *ctx = kernel.getContext();
  IndexType index = IndexType::get(ctx);
  unsigned first = entry.getNumArguments();
  for (unsigned i = 0; i < kGridArgs; ++i)
    entry.addArgument(index, kernel.getLoc());
  SmallVector<Type> inputs(entry.getArgumentTypes());
  kernel.setType(FunctionType::get(ctx, inputs, {}));

  IRRewriter rewriter(ctx);
  WalkResult result = kernel.walk([&](Operation *op) -> WalkResult {
    if (auto pid = dyn_cast<ProgramIdOp>(op)) {
      rewriter.replaceOp(pid, entry.getArgument(
                                  first + static_cast<unsigned>(pid.getAxis())));
    } else if (auto num = dyn_cast<NumProgramsOp>(op)) {
      rewriter.replaceOp(
          num, entry.getArgument(first + 3 + static_cast<unsigned>(num.getAxis())));
    } else if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (!alloc.getType().hasStaticShape())
        return alloc.emitOpError(
            "tile temporaries must be statically shaped");
      rewriter.setInsertionPoint(alloc);
      rewriter.replaceOpWithNewOp<memref::AllocaOp>(
          alloc, alloc.getType(), alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), alloc.getAlignmentAttr());
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  // Triangular inverses: the sequential forward substitution (one thread).
  auto threadZero = [](OpBuilder &b, Location loc) -> Value {
    return arith::ConstantIndexOp::create(b, loc, 0);
  };
  if (failed(lowerUnitLowerInverses(rewriter, kernel, /*numThreads=*/1,
                                    threadZero, "convert-tile-to-cpu")))
    return failure();
  kernel->removeAttr(TileDialect::getKernelAttrName());
  kernel->removeAttr(TileDialect::getTuningAttrName());
  kernel.setPrivate();
  return success();
}

/// tile.launch -> for z, y, x: call kernel(args..., x, y, z, gx, gy, gz).
void convertLaunch(LaunchOp launch) {
  OpBuilder b(launch);
  Location loc = launch.getLoc();
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  Value gx = launch.getGridX(), gy = launch.getGridY(), gz = launch.getGridZ();
  auto loopZ = scf::ForOp::create(b, loc, c0, gz, c1);
  b.setInsertionPointToStart(loopZ.getBody());
  auto loopY = scf::ForOp::create(b, loc, c0, gy, c1);
  b.setInsertionPointToStart(loopY.getBody());
  auto loopX = scf::ForOp::create(b, loc, c0, gx, c1);
  b.setInsertionPointToStart(loopX.getBody());
  SmallVector<Value> operands(launch.getArgs());
  operands.append({loopX.getInductionVar(), loopY.getInductionVar(),
                   loopZ.getInductionVar(), gx, gy, gz});
  func::CallOp::create(b, loc, launch.getKernel(), TypeRange(), operands);
  launch.erase();
}

struct ConvertTileToCPUPass
    : public kda::impl::ConvertTileToCPUPassBase<ConvertTileToCPUPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (func->hasAttr(TileDialect::getKernelAttrName())) {
        if (failed(convertKernel(func)))
          return signalPassFailure();
      } else if (func->hasAttr(kda::KDADialect::getEntryAttrName())) {
        // Host entries get a C interface for the ExecutionEngine.
        func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      UnitAttr::get(&getContext()));
      }
    }
    SmallVector<LaunchOp> launches;
    module.walk([&](LaunchOp launch) { launches.push_back(launch); });
    for (LaunchOp launch : launches)
      convertLaunch(launch);
  }
};

} // namespace
