//===- ReductionLoops.cpp - a thread's reduction loops -------------------===//
//
// After the thread schedule jams a thread's outputs into the reduction
// loop, every reduction step loads each output element from shared memory
// and stores it back (LLVM may keep them in registers when it can tell the
// buffers apart; here it is explicit). Once the loop stores nothing, CSE
// merges the operand loads that the copies share, and loads may move:
// those loads, one shared-memory access per warp each, bound the exact
// diagonal blocks, and reading 4 steps' elements per access cuts them 4x
// (intra_diag 1.20 -> 0.91 ms on an H200 at T=8192, H=96, K=128).
//
//===----------------------------------------------------------------------===//

#include "ReductionLoops.h"
#include "SharedMemory.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

using namespace mlir;

bool kda::areEquivalentIndices(ValueRange a, ValueRange b) {
  return llvm::equal(a, b, [](Value x, Value y) {
    if (x == y)
      return true;
    Operation *defX = x.getDefiningOp(), *defY = y.getDefiningOp();
    return defX && defY &&
           OperationEquivalence::isEquivalentTo(
               defX, defY, OperationEquivalence::IgnoreLocations);
  });
}

namespace {

/// One output element that the loop reads and writes: its loads (all
/// before the store, in the loop's block) and its one store.
struct Accumulator {
  memref::StoreOp store;
  SmallVector<memref::LoadOp> loads;
};

/// The accumulators of `loop` that can be carried through it: stores in
/// the loop's own block at indices defined outside the loop, the only
/// store of their element, after every load of it, in a buffer that the
/// loop uses only through loads and stores in its own block.
SmallVector<Accumulator> findAccumulators(scf::ForOp loop) {
  Block *body = loop.getBody();
  SmallVector<Accumulator> found;
  for (Operation &op : body->without_terminator()) {
    auto store = dyn_cast<memref::StoreOp>(op);
    if (!store)
      continue;
    Value buffer = store.getMemRef();
    if (!loop.isDefinedOutsideOfLoop(buffer) ||
        !llvm::all_of(store.getIndices(), [&](Value index) {
          return loop.isDefinedOutsideOfLoop(index);
        }))
      continue;
    Accumulator acc{store, {}};
    bool ok = true;
    for (OpOperand &use : buffer.getUses()) {
      Operation *user = use.getOwner();
      if (user == store.getOperation() || !loop->isAncestor(user))
        continue;
      if (user->getBlock() != body) {
        ok = false;
        break;
      }
      if (auto load = dyn_cast<memref::LoadOp>(user)) {
        if (!kda::areEquivalentIndices(load.getIndices(),
                                       store.getIndices())) {
          // Another copy's element (the index of another store), or an
          // element the loop may not keep apart from this one.
          bool otherCopy = llvm::any_of(buffer.getUsers(), [&](Operation *u) {
            auto other = dyn_cast<memref::StoreOp>(u);
            return other && other->getBlock() == body &&
                   kda::areEquivalentIndices(other.getIndices(),
                                             load.getIndices());
          });
          if (!otherCopy) {
            ok = false;
            break;
          }
          continue;
        }
        if (!load->isBeforeInBlock(store)) {
          ok = false;
          break;
        }
        acc.loads.push_back(load);
        continue;
      }
      auto other = dyn_cast<memref::StoreOp>(user);
      if (!other || other.getMemRef() != buffer ||
          kda::areEquivalentIndices(other.getIndices(), store.getIndices())) {
        ok = false;
        break;
      }
    }
    if (ok)
      found.push_back(std::move(acc));
  }
  return found;
}

/// True if nothing in `loop` writes memory.
bool writesNothing(scf::ForOp loop) {
  WalkResult result = loop.getBody()->walk([](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      return op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    }
    return effects.hasEffect<MemoryEffects::Write>() ||
                   effects.hasEffect<MemoryEffects::Free>() ||
                   effects.hasEffect<MemoryEffects::Allocate>()
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// True if `index` is `iv`, or an affine.apply that yields its one operand
/// `iv` unchanged (linalg-to-loops writes identity maps that way).
bool isIdentityOf(Value index, Value iv) {
  if (index == iv)
    return true;
  auto apply = index.getDefiningOp<affine::AffineApplyOp>();
  if (!apply || apply.getMapOperands().size() != 1 ||
      apply.getMapOperands()[0] != iv)
    return false;
  AffineExpr result = apply.getAffineMap().getResult(0);
  return isa<AffineDimExpr, AffineSymbolExpr>(result);
}

/// Bytes one vector load reads, and its alignment.
constexpr int64_t kVectorBytes = 16;

/// True if every row of `memref` (a workgroup buffer of 32-bit elements)
/// starts at a 16-byte boundary of the packed shared memory: its layout
/// keeps rows 16-byte aligned within a view (through subviews, whose
/// offsets the type carries) at a 16-byte multiple of the block.
bool hasAlignedRows(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || type.getElementTypeBitWidth() != 32 ||
      !kda::hasSixteenByteRows(type))
    return false;
  while (auto subview = memref.getDefiningOp<memref::SubViewOp>())
    memref = subview.getSource();
  auto view = memref.getDefiningOp<memref::ViewOp>();
  if (!view)
    return false;
  std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
  return shift && *shift % kVectorBytes == 0;
}

} // namespace

scf::ForOp kda::vectorizeReductionLoads(RewriterBase &rewriter,
                                        scf::ForOp reduction) {
  constexpr int64_t width = kVectorBytes / 4;
  std::optional<int64_t> lb = getConstantIntValue(reduction.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(reduction.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(reduction.getStep());
  if (!lb || !ub || !step || *lb != 0 || *step != 1 || *ub <= 0 ||
      *ub % width != 0 || !writesNothing(reduction))
    return reduction;
  Value iv = reduction.getInductionVar();
  Block *body = reduction.getBody();
  SmallVector<memref::LoadOp> loads;
  for (Operation &op : body->without_terminator()) {
    auto load = dyn_cast<memref::LoadOp>(op);
    if (!load || load.getIndices().empty() ||
        !isIdentityOf(load.getIndices().back(), iv) ||
        !reduction.isDefinedOutsideOfLoop(load.getMemRef()) ||
        !llvm::all_of(load.getIndices().drop_back(),
                      [&](Value index) {
                        return reduction.isDefinedOutsideOfLoop(index);
                      }) ||
        !hasAlignedRows(load.getMemRef()))
      continue;
    loads.push_back(load);
  }
  if (loads.empty())
    return reduction;

  Location loc = reduction.getLoc();
  rewriter.setInsertionPoint(reduction);
  Value stepBy = arith::ConstantIndexOp::create(rewriter, loc, width);
  auto wide = scf::ForOp::create(rewriter, loc, reduction.getLowerBound(),
                                 reduction.getUpperBound(), stepBy,
                                 reduction.getInitArgs());
  rewriter.setInsertionPointToStart(wide.getBody());
  Value wideIv = wide.getInductionVar();
  DenseMap<Operation *, Value> vectors;
  for (memref::LoadOp load : loads) {
    SmallVector<Value> indices(load.getIndices().drop_back());
    indices.push_back(wideIv);
    auto type = VectorType::get({width}, load.getType());
    vectors[load] = vector::LoadOp::create(
        rewriter, load.getLoc(), type, load.getMemRef(), indices,
        /*nontemporal=*/false, llvm::MaybeAlign(kVectorBytes));
  }
  ValueRange carried = wide.getRegionIterArgs();
  SmallVector<Value> next;
  for (int64_t lane = 0; lane < width; ++lane) {
    IRMapping mapping;
    mapping.map(iv, lane == 0 ? wideIv
                              : arith::AddIOp::create(
                                    rewriter, loc, wideIv,
                                    arith::ConstantIndexOp::create(
                                        rewriter, loc, lane))
                                    .getResult());
    mapping.map(reduction.getRegionIterArgs(), carried);
    for (Operation &op : body->without_terminator()) {
      auto it = vectors.find(&op);
      if (it == vectors.end()) {
        rewriter.clone(op, mapping);
        continue;
      }
      mapping.map(op.getResult(0),
                  vector::ExtractOp::create(rewriter, op.getLoc(), it->second,
                                            ArrayRef<int64_t>{lane})
                      .getResult());
    }
    next.clear();
    for (Value yielded : body->getTerminator()->getOperands())
      next.push_back(mapping.lookupOrDefault(yielded));
    carried = next;
  }
  scf::YieldOp::create(rewriter, loc, next);
  rewriter.replaceOp(reduction, wide.getResults());
  return wide;
}

scf::ForOp kda::promoteReductionAccumulators(RewriterBase &rewriter,
                                             scf::ForOp reduction) {
  // The thread's coordinates (index math) first, so that the accumulator
  // indices are defined outside the loop.
  (void)moveLoopInvariantCode(
      cast<LoopLikeOpInterface>(reduction.getOperation()));
  SmallVector<Accumulator> accumulators = findAccumulators(reduction);
  Location loc = reduction.getLoc();
  if (!accumulators.empty()) {
    rewriter.setInsertionPoint(reduction);
    SmallVector<Value> inits;
    for (Accumulator &acc : accumulators)
      inits.push_back(memref::LoadOp::create(rewriter, loc,
                                             acc.store.getMemRef(),
                                             acc.store.getIndices()));
    SmallVector<Value> stored;
    for (Accumulator &acc : accumulators)
      stored.push_back(acc.store.getValueToStore());
    FailureOr<LoopLikeOpInterface> grown =
        reduction.replaceWithAdditionalYields(
            rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
            [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
              return stored;
            });
    if (failed(grown))
      return reduction;
    reduction = cast<scf::ForOp>(grown->getOperation());
    unsigned first = reduction.getNumResults() - accumulators.size();
    rewriter.setInsertionPointAfter(reduction);
    for (auto [i, acc] : llvm::enumerate(accumulators)) {
      Value carried = reduction.getRegionIterArgs()[first + i];
      for (memref::LoadOp load : acc.loads)
        rewriter.replaceOp(load, carried);
      memref::StoreOp::create(rewriter, loc, reduction.getResult(first + i),
                              acc.store.getMemRef(), acc.store.getIndices());
      rewriter.eraseOp(acc.store);
    }
  }

  // Loads that do not change across iterations, once nothing is written.
  std::optional<APInt> trips = reduction.getStaticTripCount();
  if (!trips || trips->isZero() || !writesNothing(reduction))
    return reduction;
  for (Operation &op :
       llvm::make_early_inc_range(reduction.getBody()->without_terminator())) {
    auto load = dyn_cast<memref::LoadOp>(op);
    if (load && llvm::all_of(load->getOperands(), [&](Value operand) {
          return reduction.isDefinedOutsideOfLoop(operand);
        }))
      rewriter.moveOpBefore(load, reduction);
  }
  return reduction;
}
