//===- SIMTPrefetch.cpp - loads issued one loop trip ahead ----------------===//
//
// Two kinds of loads in an scf.for body, with the kernel's stages (two or
// more, or convert-tile-to-simt's prefetch):
//
// A tile that stays in shared memory for the dots that read it
// (keepsInSharedMemory) and is loaded in the body of an scf.for, at an
// address that changes with the induction variable, is copied one trip
// ahead. Its buffer holds two slots: the copy for the first trip is issued
// before the loop, and the copy for trip i + 1 right after the wait and the
// barrier that publish trip i's copies, so that it overlaps all of trip i's
// work; trip i's dots read slot i % 2. That barrier also frees the other
// slot (every thread is past trip i - 1, its last reader), so one wait and
// one barrier per trip serve every prefetched load of the loop, where a
// copy issued at the load needs a barrier before it and one after it.
// With N > 2 stages the copies run N - 1 trips ahead: N slots, the copies
// for trips 0 to N - 2 before the loop, and in trip i, after the wait and
// the barrier, those for trip i + N - 1 into slot (i + N - 1) % N, the slot
// of trip i - 1 that the barrier freed. Each trip's copies are one
// cp.async group (committed even when the trip is past the end, so that
// every trip counts one), and the wait leaves the N - 2 latest groups in
// flight: trip i waits for its own copies only.
//
// A tile held in registers whose address changes with the induction
// variable, from a buffer the loop does not store into, becomes a
// loop-carried value: loaded before the loop for the first trip, and in
// each trip for the next one (prefetchRegisterLoads).
//
// This runs on the tile program before the conversion: the copies'
// addresses are clones of the load's own index arithmetic, with the
// induction variable replaced by the first trip's or the next trip's.
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "kda/Dialect/Tile/TileOps.h"
#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::kda;
using namespace mlir::kda::simt;

namespace {

/// The ops of `loop`'s body that compute `values` from its induction
/// variable and from values defined outside the loop, in body order, or
/// failure if any of them depends on something else (a loop-carried value,
/// an op with memory effects or regions), so that it cannot be recomputed
/// for another trip. Sets `dependsOnTrip` when the induction variable is
/// among the inputs.
FailureOr<SmallVector<Operation *>> getTripSlice(scf::ForOp loop,
                                                 ValueRange values,
                                                 bool &dependsOnTrip) {
  Block *body = loop.getBody();
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> work(values.begin(), values.end());
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    if (value == loop.getInductionVar()) {
      dependsOnTrip = true;
      continue;
    }
    if (!loop.getRegion().isAncestor(value.getParentRegion()))
      continue;
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != body || def->getNumRegions() ||
        !isPure(def))
      return failure();
    ops.insert(def);
    work.append(def->operand_begin(), def->operand_end());
  }
  SmallVector<Operation *> sorted = ops.takeVector();
  llvm::sort(sorted, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  return sorted;
}

/// One load to prefetch: its address computation and its buffer.
struct PrefetchedLoad {
  tile::LoadOp load;
  SmallVector<Operation *> slice;
  Value buffer;
};

/// True when `load` can be copied for any trip of `loop` (its address
/// computed from the induction variable and values from outside) and its
/// address does change from trip to trip, only along dimensions inside its
/// box (so a trip past the data reads nothing out of bounds); fills
/// `slice`.
bool isPrefetchable(scf::ForOp loop, tile::LoadOp load,
                    SmallVector<Operation *> &slice) {
  bool dependsOnTrip = false;
  FailureOr<SmallVector<Operation *>> ops =
      getTripSlice(loop, load->getOperands(), dependsOnTrip);
  if (failed(ops) || !dependsOnTrip)
    return false;
  ArrayRef<int64_t> dims = load.getDims();
  for (auto [dim, index] : llvm::enumerate(load.getIndices())) {
    bool indexDependsOnTrip = false;
    (void)getTripSlice(loop, index, indexDependsOnTrip);
    if (indexDependsOnTrip &&
        !llvm::is_contained(dims, static_cast<int64_t>(dim)))
      return false;
  }
  slice = std::move(*ops);
  return true;
}

/// Issues the copies of every load of `loads` for the trip whose induction
/// variable is `iv`, into slot `slot` (null: slot 0), at `b`'s insertion
/// point; each copy is committed on its own unless `commit` is false.
void copyForTrip(OpBuilder &b, Location loc, scf::ForOp loop,
                 ArrayRef<PrefetchedLoad> loads, Value iv, Value slot,
                 bool commit = true) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  for (const PrefetchedLoad &prefetched : loads)
    for (Operation *op : prefetched.slice)
      if (!mapping.contains(op))
        b.clone(*op, mapping);
  for (PrefetchedLoad prefetched : loads) {
    tile::LoadOp load = prefetched.load;
    auto map = [&](ValueRange values) {
      return llvm::map_to_vector(
          values, [&](Value v) { return mapping.lookupOrDefault(v); });
    };
    SmallVector<Value> indices = map(load.getIndices());
    SmallVector<Value> bounds = map(load.getBounds());
    Value rowOffset;
    if (slot)
      rowOffset = arith::MulIOp::create(
          b, loc, slot,
          arith::ConstantIndexOp::create(
              b, loc, load.getResult().getType().getDimSize(0)));
    copyTileToShared(b, loc, load, mapping.lookupOrDefault(load.getSource()),
                     indices, bounds, prefetched.buffer, rowOffset,
                     /*leadingBarrier=*/false, commit);
  }
}

/// Prefetches the kept loads of `loop`'s body `stages` - 1 trips ahead: all
/// of them or, when one cannot be (its address does not change, or cannot
/// be recomputed), none.
void prefetchLoop(scf::ForOp loop, SharedOperandMap &sharedOperands,
                  int64_t stages) {
  SmallVector<PrefetchedLoad> loads;
  Operation *first = nullptr;
  for (auto load : loop.getBody()->getOps<tile::LoadOp>()) {
    if (!keepsInSharedMemory(load))
      continue;
    Operation *reader = firstReaderInBlock(load);
    SmallVector<Operation *> slice;
    if (!reader || !isPrefetchable(loop, load, slice))
      return;
    loads.push_back({load, std::move(slice), Value()});
    if (!first || reader->isBeforeInBlock(first))
      first = reader;
  }
  if (loads.empty())
    return;
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  // Two stages commit each copy where it is issued and wait for all; more
  // commit one group per trip and wait for the oldest only.
  const bool tripGroups = stages > 2;
  auto commitTrip = [&](OpBuilder &nb, Location nl) {
    if (tripGroups)
      NVVM::CpAsyncCommitGroupOp::create(nb, nl);
  };
  // The buffers, and the copies of the first stages - 1 trips.
  for (PrefetchedLoad &prefetched : loads)
    prefetched.buffer = allocSharedOperand(
        b, prefetched.load.getLoc(), prefetched.load.getResult().getType(),
        /*slots=*/stages);
  for (int64_t ahead = 0; ahead < stages - 1; ++ahead) {
    Value iv = ahead == 0 ? loop.getLowerBound()
                          : arith::AddIOp::create(
                                b, loc, loop.getLowerBound(),
                                arith::MulIOp::create(b, loc, loop.getStep(),
                                                      cst(ahead)))
                                .getResult();
    Value runs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv,
                                       loop.getUpperBound());
    scf::IfOp::create(b, loc, runs, [&](OpBuilder &nb, Location nl) {
      copyForTrip(nb, nl, loop, loads, iv, ahead == 0 ? Value() : cst(ahead),
                  /*commit=*/!tripGroups);
      scf::YieldOp::create(nb, nl);
    });
    commitTrip(b, loc);
  }
  // In the body, before the first reader: this trip's copies done and seen
  // by every thread (which also frees the slot of the trip before), then
  // the copies of the trip stages - 1 ahead into that slot.
  b.setInsertionPoint(first);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, stages - 2);
  gpu::BarrierOp::create(b, loc);
  Value iv = loop.getInductionVar();
  Value trip = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()),
      loop.getStep());
  Value slot = arith::RemUIOp::create(b, loc, trip, cst(stages));
  Value aheadSlot, ahead;
  if (stages == 2) {
    aheadSlot = arith::SubIOp::create(b, loc, cst(1), slot);
    ahead = arith::AddIOp::create(b, loc, iv, loop.getStep());
  } else {
    aheadSlot = arith::RemUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, trip, cst(stages - 1)),
        cst(stages));
    ahead = arith::AddIOp::create(
        b, loc, iv,
        arith::MulIOp::create(b, loc, loop.getStep(), cst(stages - 1)));
  }
  Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, ahead,
                                     loop.getUpperBound());
  scf::IfOp::create(b, loc, more, [&](OpBuilder &nb, Location nl) {
    copyForTrip(nb, nl, loop, loads, ahead, aheadSlot, /*commit=*/!tripGroups);
    scf::YieldOp::create(nb, nl);
  });
  commitTrip(b, loc);
  for (PrefetchedLoad &prefetched : loads) {
    Value rowOffset = arith::MulIOp::create(
        b, loc, slot,
        cst(prefetched.load.getResult().getType().getDimSize(0)));
    sharedOperands[prefetched.load] = {prefetched.buffer, rowOffset};
  }
}

/// True when a tile.store inside `loop` may write the buffer `source`
/// reads: stores into another kernel argument do not
/// (tile::distinctKernelArguments).
bool writtenInLoop(scf::ForOp loop, Value source) {
  return loop
      ->walk([&](tile::StoreOp store) {
        return tile::distinctKernelArguments(store.getDest(), source)
                   ? WalkResult::advance()
                   : WalkResult::interrupt();
      })
      .wasInterrupted();
}

/// Loads the register tiles of `loop`'s body one trip ahead: each tile.load
/// of the body held in registers (not keepsInSharedMemory) whose address
/// changes with the induction variable and whose buffer the loop does not
/// write becomes a loop-carried value. The first trip's tile is loaded
/// before the loop (when it runs at all; zeros otherwise), and at the
/// load's place each trip loads the next trip's tile (the last trip reloads
/// its own, so no address outside the trips is read) and yields it. Its
/// memory latency then overlaps a whole trip's work, at the cost of holding
/// two copies of the tile in registers.
void prefetchRegisterLoopLoads(scf::ForOp loop) {
  SmallVector<PrefetchedLoad> loads;
  for (auto load : loop.getBody()->getOps<tile::LoadOp>()) {
    if (keepsInSharedMemory(load) || writtenInLoop(loop, load.getSource()))
      continue;
    bool dependsOnTrip = false;
    FailureOr<SmallVector<Operation *>> slice =
        getTripSlice(loop, load->getOperands(), dependsOnTrip);
    if (failed(slice) || !dependsOnTrip)
      continue;
    loads.push_back({load, std::move(*slice), Value()});
  }
  if (loads.empty())
    return;
  Location loc = loop.getLoc();
  // Clones `prefetched`'s load, with its address computation, for the trip
  // whose induction variable is `iv`, at `b`'s insertion point.
  auto loadForTrip = [&](OpBuilder &b, PrefetchedLoad &prefetched,
                         Value iv) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), iv);
    for (Operation *op : prefetched.slice)
      b.clone(*op, mapping);
    return b.clone(*prefetched.load, mapping)->getResult(0);
  };

  // The first trip's tiles, or zeros when the loop runs no trip.
  OpBuilder b(loop);
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                    loop.getLowerBound(), loop.getUpperBound());
  SmallVector<Type> types;
  for (PrefetchedLoad &prefetched : loads)
    types.push_back(prefetched.load.getType());
  auto first = scf::IfOp::create(b, loc, types, any, /*withElse=*/true);
  {
    OpBuilder tb = first.getThenBodyBuilder();
    SmallVector<Value> tiles;
    for (PrefetchedLoad &prefetched : loads)
      tiles.push_back(loadForTrip(tb, prefetched, loop.getLowerBound()));
    scf::YieldOp::create(tb, loc, tiles);
    OpBuilder eb = first.getElseBodyBuilder();
    SmallVector<Value> zeros;
    for (PrefetchedLoad &prefetched : loads) {
      auto type = cast<RankedTensorType>(prefetched.load.getType());
      Value zero = arith::ConstantOp::create(
          eb, loc, eb.getZeroAttr(type.getElementType()));
      zeros.push_back(tile::SplatOp::create(eb, loc, type, zero));
    }
    scf::YieldOp::create(eb, loc, zeros);
  }

  // In the body, at each load: the next trip's tile (this trip's on the
  // last one).
  b.setInsertionPoint(loads.front().load);
  Value iv = loop.getInductionVar();
  Value next = arith::AddIOp::create(b, loc, iv, loop.getStep());
  Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, next,
                                     loop.getUpperBound());
  Value nextTrip = arith::SelectOp::create(b, loc, more, next, iv);
  SmallVector<Value> nextTiles;
  for (PrefetchedLoad &prefetched : loads) {
    b.setInsertionPoint(prefetched.load);
    nextTiles.push_back(loadForTrip(b, prefetched, nextTrip));
  }
  IRRewriter rewriter(loop->getContext());
  rewriter.setInsertionPoint(loop);
  FailureOr<LoopLikeOpInterface> rebuilt = loop.replaceWithAdditionalYields(
      rewriter, first.getResults(), /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return nextTiles;
      });
  if (failed(rebuilt))
    return;
  auto newLoop = cast<scf::ForOp>(rebuilt->getOperation());
  unsigned firstNew = newLoop.getNumRegionIterArgs() - loads.size();
  for (auto [i, prefetched] : llvm::enumerate(loads)) {
    prefetched.load.getResult().replaceAllUsesWith(
        newLoop.getRegionIterArg(firstNew + i));
    prefetched.load->erase();
  }
}

} // namespace

void simt::prefetchRegisterLoads(func::FuncOp kernel) {
  SmallVector<scf::ForOp> loops;
  kernel.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops)
    prefetchRegisterLoopLoads(loop);
}

void simt::prefetchKeptLoads(func::FuncOp kernel,
                             SharedOperandMap &sharedOperands,
                             int64_t stages) {
  SmallVector<scf::ForOp> loops;
  kernel.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops)
    prefetchLoop(loop, sharedOperands, std::max<int64_t>(stages, 2));
}
