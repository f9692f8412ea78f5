//===- HoistTileLoads.cpp - tile loads as early as their operands allow ---===//
//
// A kernel written in program order interleaves loads with the compute that
// uses them: load q, scale it, load h, multiply. Moved to the top of their
// block, the loads form one group of asynchronous copies on the GPU (one
// memory latency instead of one per load), and the compute before their
// first use runs while they are in flight.
//
//===----------------------------------------------------------------------===//

#include "kda/Conversion/Passes.h"
#include "kda/Dialect/Tile/TileOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::kda {
#define GEN_PASS_DEF_HOISTTILELOADSPASS
#include "Conversion/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;
using namespace mlir::kda;

namespace {

/// True if `a` and `b` are distinct arguments of the kernel: tile kernels
/// take their buffers like `__restrict__` pointers (the launch plan never
/// passes one buffer twice), so they do not overlap.
bool distinctKernelArguments(Value a, Value b) {
  return a != b && isa<BlockArgument>(a) && isa<BlockArgument>(b) &&
         isa<func::FuncOp>(a.getParentBlock()->getParentOp()) &&
         a.getParentBlock() == b.getParentBlock();
}

/// True if `load` may move above `op`: `op` is not another load (loads keep
/// their order), has no regions, and writes no memory, or only stores into
/// another kernel argument than the one `load` reads.
bool loadMayCross(tile::LoadOp load, Operation *op) {
  if (isa<tile::LoadOp>(op) || op->getNumRegions() != 0)
    return false;
  if (auto store = dyn_cast<tile::StoreOp>(op))
    return distinctKernelArguments(store.getDest(), load.getSource());
  if (isMemoryEffectFree(op))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::all_of(instances, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read>(e.getEffect());
  });
}

/// The earliest op of `load`'s block that `load` may be placed before.
Operation *hoistPoint(tile::LoadOp load) {
  Operation *point = load;
  while (Operation *prev = point->getPrevNode()) {
    if (!loadMayCross(load, prev) ||
        llvm::any_of(load->getOperands(),
                     [&](Value v) { return v.getDefiningOp() == prev; }))
      break;
    point = prev;
  }
  return point;
}

struct HoistTileLoadsPass
    : kda::impl::HoistTileLoadsPassBase<HoistTileLoadsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(tile::TileDialect::getKernelAttrName()))
        continue;
      // Program order: each load lands after the loads hoisted before it.
      SmallVector<tile::LoadOp> loads;
      func.walk([&](tile::LoadOp load) { loads.push_back(load); });
      for (tile::LoadOp load : loads) {
        Operation *point = hoistPoint(load);
        if (point != load.getOperation())
          load->moveBefore(point);
      }
    }
  }
};

} // namespace
