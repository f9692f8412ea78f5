//===- SiblingReductions.cpp - one loop nest for reductions that share inputs -===//
//
// The exact diagonal blocks reduce two products over K that share their
// decay factor: sum_k q[i,k] k[j,k] exp2(g[i,k] - g[j,k]) and the same with
// k[i,k]. Fused separately with their producers, each reduction evaluates
// the exp2 and loads the gates itself. Merged into one loop nest, the
// common part is computed once per element.
//
//===----------------------------------------------------------------------===//

#include "SiblingReductions.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {

/// True if `a` and `b` iterate over the same static domain the same way,
/// with at least one reduction loop.
bool sameReductionDomain(linalg::GenericOp a, linalg::GenericOp b) {
  if (!a.hasPureTensorSemantics() || !b.hasPureTensorSemantics() ||
      a.getNumReductionLoops() == 0 ||
      a.getIteratorTypesArray() != b.getIteratorTypesArray())
    return false;
  SmallVector<int64_t> rangesA = a.getStaticLoopRanges();
  SmallVector<int64_t> rangesB = b.getStaticLoopRanges();
  return rangesA == rangesB && llvm::none_of(rangesA, ShapedType::isDynamic);
}

bool shareAnInput(linalg::GenericOp a, linalg::GenericOp b) {
  return llvm::any_of(a.getDpsInputs(), [&](Value x) {
    return llvm::is_contained(b.getDpsInputs(), x);
  });
}

/// True if `value` is available at `point`, or is computed in `point`'s
/// block by side-effect-free ops (such as the zero-filled init of a
/// reduction) that can move before `point`.
bool canBeAvailableAt(Value value, Operation *point, DominanceInfo &dominance) {
  if (dominance.properlyDominates(value, point))
    return true;
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != point->getBlock() || !isMemoryEffectFree(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return canBeAvailableAt(operand, point, dominance);
  });
}

/// Moves the ops computing `value` before `point` (canBeAvailableAt holds).
void makeAvailableAt(Value value, Operation *point, DominanceInfo &dominance) {
  if (dominance.properlyDominates(value, point))
    return;
  Operation *def = value.getDefiningOp();
  for (Value operand : def->getOperands())
    makeAvailableAt(operand, point, dominance);
  def->moveBefore(point);
}

/// True if every value that `op`'s body uses from outside it is available
/// at `point` (the merged body is cloned there).
bool bodyCapturesAvailableAt(linalg::GenericOp op, Operation *point,
                             DominanceInfo &dominance) {
  WalkResult result = op.getRegion().walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (!op.getRegion().isAncestor(v.getParentRegion()) &&
          !dominance.properlyDominates(v, point))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// `first` and `second` (which comes later in the same block) as one
/// generic at `first`'s place. An input of `second` that `first` already
/// reads through the same map becomes the same block argument.
void merge(IRRewriter &rewriter, linalg::GenericOp first,
           linalg::GenericOp second) {
  Block &bodyA = first.getRegion().front();
  Block &bodyB = second.getRegion().front();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  // Per kept input, the block arguments of the old bodies it stands for.
  SmallVector<SmallVector<BlockArgument>> inputArgs;
  auto addInput = [&](linalg::GenericOp op, Block &body, OpOperand *in) {
    AffineMap map = op.getMatchingIndexingMap(in);
    BlockArgument arg = body.getArgument(in->getOperandNumber());
    for (auto [i, value] : llvm::enumerate(inputs)) {
      if (value == in->get() && maps[i] == map) {
        inputArgs[i].push_back(arg);
        return;
      }
    }
    inputs.push_back(in->get());
    maps.push_back(map);
    inputArgs.push_back({arg});
  };
  for (OpOperand *in : first.getDpsInputOperands())
    addInput(first, bodyA, in);
  for (OpOperand *in : second.getDpsInputOperands())
    addInput(second, bodyB, in);
  SmallVector<Value> inits(first.getDpsInits());
  llvm::append_range(inits, second.getDpsInits());
  for (OpOperand &init : first.getDpsInitsMutable())
    maps.push_back(first.getMatchingIndexingMap(&init));
  for (OpOperand &init : second.getDpsInitsMutable())
    maps.push_back(second.getMatchingIndexingMap(&init));
  SmallVector<Type> resultTypes(first.getResultTypes());
  llvm::append_range(resultTypes, second.getResultTypes());

  rewriter.setInsertionPoint(first);
  auto merged = linalg::GenericOp::create(
      rewriter, first.getLoc(), resultTypes, inputs, inits, maps,
      first.getIteratorTypesArray());
  Block *body = rewriter.createBlock(&merged.getRegion());
  IRMapping mapping;
  for (auto [value, args] : llvm::zip(inputs, inputArgs)) {
    BlockArgument arg = body->addArgument(args.front().getType(),
                                          args.front().getLoc());
    for (BlockArgument old : args)
      mapping.map(old, arg);
  }
  auto addInitArgs = [&](linalg::GenericOp op, Block &from) {
    for (OpOperand &init : op.getDpsInitsMutable()) {
      BlockArgument old = from.getArgument(init.getOperandNumber());
      mapping.map(old, body->addArgument(old.getType(), old.getLoc()));
    }
  };
  addInitArgs(first, bodyA);
  addInitArgs(second, bodyB);
  rewriter.setInsertionPointToStart(body);
  SmallVector<Value> yielded;
  for (Block *from : {&bodyA, &bodyB}) {
    for (Operation &op : from->without_terminator())
      rewriter.clone(op, mapping);
    for (Value v : from->getTerminator()->getOperands())
      yielded.push_back(mapping.lookupOrDefault(v));
  }
  linalg::YieldOp::create(rewriter, first.getLoc(), yielded);

  unsigned numA = first.getNumResults();
  rewriter.replaceOp(first, merged.getResults().take_front(numA));
  rewriter.replaceOp(second, merged.getResults().drop_front(numA));
}

} // namespace

void mlir::kda::fuseSiblingReductions(func::FuncOp kernel) {
  IRRewriter rewriter(kernel.getContext());
  bool changed = true;
  while (changed) {
    changed = false;
    DominanceInfo dominance(kernel);
    SmallVector<linalg::GenericOp> generics;
    kernel.walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp first : generics) {
      for (Operation *op = first->getNextNode(); op; op = op->getNextNode()) {
        auto second = dyn_cast<linalg::GenericOp>(op);
        if (!second || !sameReductionDomain(first, second) ||
            !shareAnInput(first, second) ||
            llvm::any_of(second->getOperands(), [&](Value v) {
              return !canBeAvailableAt(v, first, dominance);
            }) ||
            !bodyCapturesAvailableAt(second, first, dominance))
          continue;
        for (Value v : second->getOperands())
          makeAvailableAt(v, first, dominance);
        merge(rewriter, first, second);
        changed = true;
        break;
      }
      if (changed)
        break;
    }
  }
}
