//===- ThreadSchedule.cpp - static per-thread loops for tile ops ----------===//
//
// Striding the linearized iteration space over the threads (for i = tid;
// i < N; i += numThreads) gives every thread a loop whose trip count
// depends on tid and whose coordinates come from dividing i by the
// extents at each iteration: most of a tile op's instructions were this
// integer and branch work. Here the trip count is static and the
// coordinates are the thread's own plus constants.
//
//===----------------------------------------------------------------------===//

#include "ThreadSchedule.h"

#include "ReductionLoops.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {

/// Iterations at most this many are unrolled fully; longer loops by
/// kPartialUnroll.
constexpr int64_t kFullUnroll = 16;
constexpr int64_t kPartialUnroll = 8;

/// The reduction loop that ends `loop`'s body, after only side-effect-free
/// ops (index math), with bounds defined outside `loop` and no
/// loop-carried values; null if there is none.
scf::ForOp soleInnerLoop(scf::ForOp loop) {
  Block *body = loop.getBody();
  if (body->without_terminator().empty())
    return nullptr;
  auto inner = dyn_cast<scf::ForOp>(body->getTerminator()->getPrevNode());
  if (!inner || !inner.getInitArgs().empty())
    return nullptr;
  for (Operation &op : body->without_terminator())
    if (&op != inner.getOperation() && !isMemoryEffectFree(&op))
      return nullptr;
  for (Value bound :
       {inner.getLowerBound(), inner.getUpperBound(), inner.getStep()})
    if (!loop.isDefinedOutsideOfLoop(bound))
      return nullptr;
  return inner;
}

/// True if the only memory an iteration of `trips` both reads and writes is
/// the element it stores (the accumulator of a reduction: loads and stores
/// of one buffer use the same indices), so iterations may interleave.
bool onlyOwnElementRead(scf::ForOp trips) {
  SmallVector<memref::StoreOp> stores;
  trips.walk([&](memref::StoreOp store) { stores.push_back(store); });
  WalkResult result = trips.walk([&](memref::LoadOp load) {
    for (memref::StoreOp store : stores)
      if (store.getMemRef() == load.getMemRef() &&
          !kda::areEquivalentIndices(store.getIndices(), load.getIndices()))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// Moves the thread's loop over its output elements (`trips`, about to be
/// unrolled) inside the reduction loops that make up its body, so that
/// after unrolling one reduction step serves all of the thread's outputs:
/// operands they share (the same row or column of a broadcast input) are
/// loaded once per step instead of once per output. Legal because the
/// iterations of `trips` write distinct output elements, and a linalg op's
/// inputs are not written by it (checked: loads from a stored buffer use
/// the store's indices). Returns the (moved) loop.
scf::ForOp jamIntoReductionLoops(RewriterBase &rewriter, scf::ForOp trips) {
  if (!onlyOwnElementRead(trips))
    return trips;
  while (scf::ForOp reduction = soleInnerLoop(trips)) {
    // trips { reduction { body } }  ->  reduction { trips { body } }.
    // The index math at the start of `trips` (the thread's coordinates)
    // stays with the body; only the reduction loop op moves.
    Block *tripsBody = trips.getBody();
    Block *reductionBody = reduction.getBody();
    rewriter.moveOpBefore(reduction, trips);
    for (Operation &op :
         llvm::make_early_inc_range(reductionBody->without_terminator()))
      rewriter.moveOpBefore(&op, tripsBody->getTerminator());
    rewriter.moveOpBefore(trips, reductionBody->getTerminator());
  }
  return trips;
}

} // namespace

bool kda::scheduleBandStatically(RewriterBase &rewriter,
                                 ArrayRef<scf::ForOp> bandLoops, Value tid,
                                 int64_t numThreads) {
  SmallVector<scf::ForOp> band(bandLoops);
  if (band.empty())
    return false;
  SmallVector<int64_t> extents;
  for (scf::ForOp loop : band) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *lb != 0 || *step != 1 || *ub <= 0 ||
        !loop.getInitArgs().empty())
      return false;
    extents.push_back(*ub);
  }
  int64_t cols = extents.back();
  int64_t rows = 1;
  for (int64_t d : ArrayRef<int64_t>(extents).drop_back())
    rows *= d;
  bool columnPerThread = numThreads % cols == 0;
  bool rowsPerThread = !columnPerThread && cols % numThreads == 0;
  if (!columnPerThread && !rowsPerThread)
    return false;

  Location loc = band.front().getLoc();
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  rewriter.setInsertionPoint(band.front());
  int64_t rowStep = columnPerThread ? numThreads / cols : 0;
  int64_t piecesPerRow = rowsPerThread ? cols / numThreads : 0;
  int64_t trips = columnPerThread ? llvm::divideCeil(rows, rowStep)
                                  : rows * piecesPerRow;
  bool guarded = columnPerThread && rows % rowStep != 0;
  // The thread's own coordinates, outside the loop.
  Value ownRow, ownCol;
  if (columnPerThread) {
    ownRow = arith::DivUIOp::create(rewriter, loc, tid, cst(cols));
    ownCol = arith::RemUIOp::create(rewriter, loc, tid, cst(cols));
  }
  auto loop = scf::ForOp::create(rewriter, loc, cst(0), cst(trips), cst(1));
  rewriter.setInsertionPointToStart(loop.getBody());
  Value k = loop.getInductionVar();
  Value row, col;
  if (columnPerThread) {
    row = arith::AddIOp::create(
        rewriter, loc, ownRow,
        arith::MulIOp::create(rewriter, loc, k, cst(rowStep)));
    col = ownCol;
  } else {
    row = arith::DivUIOp::create(rewriter, loc, k, cst(piecesPerRow));
    Value piece = arith::RemUIOp::create(rewriter, loc, k, cst(piecesPerRow));
    col = arith::AddIOp::create(
        rewriter, loc, tid,
        arith::MulIOp::create(rewriter, loc, piece, cst(numThreads)));
  }
  Block *dest = loop.getBody();
  if (guarded) {
    Value inside = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::ult, row,
                                         cst(rows));
    auto guard = scf::IfOp::create(rewriter, loc, inside, false);
    dest = guard.thenBlock();
    rewriter.setInsertionPointToStart(dest);
  }
  SmallVector<Value> coords;
  if (extents.size() > 2) {
    auto lead = affine::AffineDelinearizeIndexOp::create(
        rewriter, loc, row, ValueRange{},
        ArrayRef<int64_t>(extents).drop_back(), /*hasOuterBound=*/true);
    llvm::append_range(coords, lead.getResults());
  } else if (extents.size() == 2) {
    coords.push_back(row);
  }
  coords.push_back(col);

  // Move the innermost band body into place, on the new coordinates.
  Block *inner = band.back().getBody();
  for (auto [bandLoop, coord] : llvm::zip(band, coords))
    rewriter.replaceAllUsesWith(bandLoop.getInductionVar(), coord);
  Operation *end = dest->getTerminator();
  for (Operation &op : llvm::make_early_inc_range(inner->without_terminator()))
    rewriter.moveOpBefore(&op, end);
  rewriter.eraseOp(band.front());

  if (trips <= kFullUnroll) {
    Operation *outside = loop->getParentOp();
    if (!guarded)
      loop = jamIntoReductionLoops(rewriter, loop);
    // The reduction loops the jam moved `loop` into, innermost first.
    SmallVector<scf::ForOp> reductions;
    for (Operation *parent = loop->getParentOp(); parent != outside;
         parent = parent->getParentOp())
      reductions.push_back(cast<scf::ForOp>(parent));
    (void)loopUnrollFull(loop);
    // Each reduction's accumulators in registers; an outer loop then sees
    // the inner loop's load before and store after it as its own.
    // The innermost loop then reads 4 steps' operands per load.
    scf::ForOp innermost;
    for (scf::ForOp reduction : reductions) {
      scf::ForOp promoted =
          kda::promoteReductionAccumulators(rewriter, reduction);
      if (!innermost)
        innermost = promoted;
    }
    if (innermost)
      (void)kda::vectorizeReductionLoads(rewriter, innermost);
  } else {
    (void)loopUnrollByFactor(loop, kPartialUnroll);
  }
  return true;
}
