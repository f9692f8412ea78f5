//===- HoistTileLoads.cpp - tile loads as early as their operands allow ---===//
//
// A kernel written in program order interleaves loads with the compute that
// uses them: load q, scale it, load h, multiply. Moved to the top of their
// block, the loads form one group of asynchronous copies on the GPU (one
// memory latency instead of one per load), and the compute before their
// first use runs while they are in flight.
//
//===----------------------------------------------------------------------===//

#include "kda/Transforms/Passes.h"
#include "kda/Dialect/Tile/TileOps.h"
#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::kda {
#define GEN_PASS_DEF_HOISTTILELOADSPASS
#include "Transforms/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;
using namespace mlir::kda;

namespace {

/// True if `load` may move above `op`: `op` is not another load (loads keep
/// their order), has no regions, and writes no memory, or only stores into
/// another kernel argument than the one `load` reads.
bool loadMayCross(tile::LoadOp load, Operation *op) {
  if (isa<tile::LoadOp>(op) || op->getNumRegions() != 0)
    return false;
  if (auto store = dyn_cast<tile::StoreOp>(op))
    return tile::distinctKernelArguments(store.getDest(), load.getSource());
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

/// Bytes of a statically shaped tensor value, or 0.
int64_t tileBytes(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape())
    return 0;
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

/// Bytes of the tiles live at `op`: its tensor results, and the tensor
/// values defined before it in its block that it or a later op of the block
/// (or an op nested in one) uses.
int64_t liveTileBytesAt(Operation *op) {
  int64_t bytes = 0;
  for (Value result : op->getResults())
    bytes += tileBytes(result);
  Block *block = op->getBlock();
  for (Operation &before : *block) {
    if (&before == op)
      break;
    for (Value v : before.getResults()) {
      if (!tileBytes(v))
        continue;
      bool usedFromOp = llvm::any_of(v.getUsers(), [&](Operation *user) {
        Operation *inBlock = block->findAncestorOpInBlock(*user);
        return inBlock && !inBlock->isBeforeInBlock(op);
      });
      if (usedFromOp)
        bytes += tileBytes(v);
    }
  }
  return bytes;
}

/// True if `op` computes on tiles (uses a tensor value).
bool usesTiles(Operation *op) {
  return llvm::any_of(op->getOperands(),
                      [](Value v) { return tileBytes(v) != 0; });
}

/// The iter_arg whose next value `value` is (a direct operand of an
/// scf.for body's yield), or null.
Value nextValueOf(Value value) {
  for (OpOperand &use : value.getUses())
    if (auto yield = dyn_cast<scf::YieldOp>(use.getOwner()))
      if (auto loop = dyn_cast<scf::ForOp>(yield->getParentOp()))
        return loop.getRegionIterArg(use.getOperandNumber());
  return Value();
}

/// True if `op` or an op nested in it uses `value`.
bool usesValue(Operation *op, Value value) {
  return op
      ->walk([&](Operation *inner) {
        return llvm::is_contained(inner->getOperands(), value)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The earliest op of `load`'s block that `load` may be placed before,
/// keeping the live tiles at each op it moves above within `maxLiveBytes`
/// (0: no limit).
Operation *hoistPoint(tile::LoadOp load, int64_t maxLiveBytes) {
  Operation *point = load;
  int64_t bytes = tileBytes(load.getResult());
  // A load of the next iteration's tile (yielded in place of an iter_arg)
  // stays after the last use of the tile it replaces: the two then need
  // one buffer, not two, and the copy overlaps the rest of the iteration.
  Value replaced = nextValueOf(load.getResult());
  while (Operation *prev = point->getPrevNode()) {
    if (!loadMayCross(load, prev) || (replaced && usesValue(prev, replaced)) ||
        llvm::any_of(load->getOperands(),
                     [&](Value v) { return v.getDefiningOp() == prev; }))
      break;
    if (maxLiveBytes > 0 && usesTiles(prev) &&
        liveTileBytesAt(prev) + bytes > maxLiveBytes)
      break;
    point = prev;
  }
  return point;
}

/// True if `op` may run earlier than it does, even where it would not have
/// run at all: a pure op without regions that neither uses nor makes tiles
/// (the index arithmetic of row offsets and bounds).
bool isSpeculatableScalar(Operation *op) {
  return isPure(op) && op->getNumRegions() == 0 &&
         !op->hasTrait<OpTrait::IsTerminator>() && !usesTiles(op) &&
         llvm::none_of(op->getResultTypes(),
                       [](Type t) { return isa<ShapedType>(t); });
}

/// The scf.if whose then-branch `op` is the first op of, if `op`'s operands
/// are all defined before that scf.if (so `op` may move above it); else
/// null.
scf::IfOp enclosingBranchToLeave(Operation *op) {
  if (op->getPrevNode())
    return nullptr;
  auto ifOp = dyn_cast<scf::IfOp>(op->getParentOp());
  if (!ifOp || op->getParentRegion() != &ifOp.getThenRegion())
    return nullptr;
  bool operandsOutside = llvm::all_of(op->getOperands(), [&](Value v) {
    return !ifOp->isAncestor(v.getParentBlock()->getParentOp());
  });
  return operandsOutside ? ifOp : nullptr;
}

/// Moves the speculatable scalar op `op` to just after the last definition
/// of its operands: up its block past any op (it is pure), and out of
/// scf.if then-branches whose condition it does not need.
void hoistScalar(Operation *op) {
  while (true) {
    Operation *point = op;
    while (Operation *prev = point->getPrevNode()) {
      if (llvm::any_of(op->getOperands(),
                       [&](Value v) { return v.getDefiningOp() == prev; }))
        break;
      point = prev;
    }
    if (point != op)
      op->moveBefore(point);
    scf::IfOp ifOp = enclosingBranchToLeave(op);
    if (!ifOp)
      return;
    op->moveBefore(ifOp);
  }
}

/// True if `load` reads in bounds wherever it runs, as far as `ifOp`'s
/// condition tells: no offset that the condition tests directly indexes a
/// dimension the load does not bound. (A tile.load masks only its bounded
/// dimensions; a branch `row < rows` around a load at `row` of an unbounded
/// dimension is what keeps that load in bounds.)
bool mayLeaveBranch(tile::LoadOp load, scf::IfOp ifOp) {
  Operation *condition = ifOp.getCondition().getDefiningOp();
  if (!condition)
    return true;
  // Without bounds a load masks nothing.
  ArrayRef<int64_t> bounded =
      load.getBounds().empty() ? ArrayRef<int64_t>() : load.getDims();
  for (auto [dim, offset] : llvm::enumerate(load.getIndices()))
    if (llvm::is_contained(condition->getOperands(), offset) &&
        !llvm::is_contained(bounded, static_cast<int64_t>(dim)))
      return false;
  return true;
}

/// Hoists `load` within its block (hoistPoint) and, with `speculate`, out
/// of the scf.if then-branches it then starts, repeatedly.
void hoistLoad(tile::LoadOp load, int64_t maxLiveBytes, bool speculate) {
  while (true) {
    Operation *point = hoistPoint(load, maxLiveBytes);
    if (point != load.getOperation())
      load->moveBefore(point);
    if (!speculate)
      return;
    scf::IfOp ifOp = enclosingBranchToLeave(load);
    if (!ifOp || !mayLeaveBranch(load, ifOp))
      return;
    // The load becomes live above the scf.if: within the budget only.
    if (maxLiveBytes > 0 &&
        liveTileBytesAt(ifOp) + tileBytes(load.getResult()) > maxLiveBytes)
      return;
    load->moveBefore(ifOp);
  }
}

struct HoistTileLoadsPass
    : kda::impl::HoistTileLoadsPassBase<HoistTileLoadsPass> {
  using HoistTileLoadsPassBase::HoistTileLoadsPassBase;
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(tile::TileDialect::getKernelAttrName()))
        continue;
      auto tuning = tile::TuningAttr::lookup(func);
      int64_t budget = maxLiveBytes;
      if (tuning && tuning.getMaxLiveBytes() > 0)
        budget = tuning.getMaxLiveBytes();
      const bool speculateHere =
          speculate || (tuning && tuning.getSpeculateLoads());
      if (speculateHere) {
        // Program order: each op's operands have moved before it does.
        SmallVector<Operation *> scalars;
        func.walk<WalkOrder::PreOrder>([&](Operation *op) {
          if (op->getParentOp() != func.getOperation() &&
              isSpeculatableScalar(op))
            scalars.push_back(op);
        });
        for (Operation *op : scalars)
          hoistScalar(op);
      }
      // Program order: each load lands after the loads hoisted before it.
      SmallVector<tile::LoadOp> loads;
      func.walk([&](tile::LoadOp load) { loads.push_back(load); });
      for (tile::LoadOp load : loads)
        hoistLoad(load, budget, speculateHere);
    }
  }
};

} // namespace
