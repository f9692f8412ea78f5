//===- LoopCarriedBuffers.cpp - one buffer per loop-carried tile ----------===//

#include "LoopCarriedBuffers.h"
#include "Barriers.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace {

/// True for a statically shaped memref in GPU shared memory.
bool isSharedBuffer(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.hasStaticShape() && kda::isWorkgroupMemRef(memref);
}

/// Rebuilds `loop` with only the iter_args `kept` (the others have no uses
/// left, inside the body or of their results), so that their buffers are
/// used by no loop and keep the freedom of any other buffer (padding).
void dropIterArgs(scf::ForOp loop, ArrayRef<unsigned> kept) {
  OpBuilder b(loop);
  SmallVector<Value> inits;
  for (unsigned i : kept)
    inits.push_back(loop.getInitArgs()[i]);
  auto rebuilt =
      scf::ForOp::create(b, loop.getLoc(), loop.getLowerBound(),
                         loop.getUpperBound(), loop.getStep(), inits);
  rebuilt->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  Block *body = rebuilt.getBody();
  if (!body->empty())
    body->back().erase(); // the builder's empty scf.yield
  Block *old = loop.getBody();
  loop.getInductionVar().replaceAllUsesWith(rebuilt.getInductionVar());
  for (auto [n, i] : llvm::enumerate(kept)) {
    loop.getRegionIterArg(i).replaceAllUsesWith(rebuilt.getRegionIterArgs()[n]);
    loop.getResult(i).replaceAllUsesWith(rebuilt.getResult(n));
  }
  body->getOperations().splice(body->end(), old->getOperations());
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  SmallVector<Value> yielded;
  for (unsigned i : kept)
    yielded.push_back(yield.getOperand(i));
  yield->setOperands(yielded);
  loop.erase();
}

/// Collects into `same` the values of `loop`'s body that are always the
/// buffer `carried`: the iter_arg itself, and results of scf.if ops whose
/// branches both yield such a value (recursively). Returns true if
/// `value` is one of them.
bool isCarriedBuffer(Value value, BlockArgument carried,
                     SmallVectorImpl<Value> &same) {
  if (value == carried)
    return true;
  auto branch = value.getDefiningOp<scf::IfOp>();
  if (!branch || branch.getElseRegion().empty())
    return false;
  unsigned n = cast<OpResult>(value).getResultNumber();
  if (!isCarriedBuffer(branch.thenYield().getOperand(n), carried, same) ||
      !isCarriedBuffer(branch.elseYield().getOperand(n), carried, same))
    return false;
  same.push_back(value);
  return true;
}

/// The ops of `body` (top level) that use `buffer` or a view of it,
/// outside `except`.
SmallVector<Operation *> topLevelUsers(Block *body, Value buffer,
                                       Operation *except) {
  SmallVector<Operation *> users;
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (user == except)
        continue;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value)
        llvm::append_range(worklist, user->getResults());
      if (Operation *inBody = body->findAncestorOpInBlock(*user))
        users.push_back(inBody);
    }
  }
  return users;
}

/// True if the shared buffer that `loop`'s body allocates as `fresh` and
/// yields for `carried` can be the carried buffer itself: `fresh` is used
/// only in the body, and every op there that touches it comes after every
/// op that uses `carried` (not the same op: one that read the old tile
/// while writing the new one could overwrite elements another thread has
/// yet to read).
bool mayWriteInPlace(scf::ForOp loop, memref::AllocOp fresh,
                     BlockArgument carried) {
  Block *body = loop.getBody();
  if (fresh->getBlock() != body || fresh.getType() != carried.getType())
    return false;
  Operation *yield = body->getTerminator();
  SmallVector<Operation *> freshUsers =
      topLevelUsers(body, fresh.getResult(), yield);
  for (Operation *user : fresh->getUsers())
    if (user != yield && !body->findAncestorOpInBlock(*user))
      return false;
  SmallVector<Operation *> carriedUsers = topLevelUsers(body, carried, yield);
  for (Operation *freshUser : freshUsers)
    for (Operation *carriedUser : carriedUsers)
      if (freshUser->isBeforeInBlock(carriedUser))
        return false;
  // The op where both meet reads the old tile and writes the new one:
  // only a separate op of its own is known to finish reading first.
  for (Operation *freshUser : freshUsers)
    if (llvm::is_contained(carriedUsers, freshUser))
      return false;
  return true;
}

} // namespace

void kda::separateLoopCarriedBuffers(gpu::GPUFuncOp func,
                                     SmallVectorImpl<memref::AllocOp> &allocs) {
  SmallVector<scf::ForOp> loops;
  func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    SmallVector<unsigned> kept;
    for (unsigned i = 0, e = loop.getNumRegionIterArgs(); i < e; ++i) {
      BlockArgument carried = loop.getRegionIterArg(i);
      Value yielded = yield.getOperand(i);
      if (!isSharedBuffer(carried.getType())) {
        kept.push_back(i);
        continue;
      }
      // A tile updated in place: every iteration hands the buffer it got
      // to the next, so the loop runs on its initial buffer throughout.
      // The body and the code after the loop use that buffer directly (its
      // bytes are then known to the barrier and wait placement), and the
      // loop stops carrying it.
      SmallVector<Value> same;
      if (isCarriedBuffer(yielded, carried, same)) {
        Value init = loop.getInitArgs()[i];
        for (Value v : same)
          v.replaceAllUsesWith(init);
        carried.replaceAllUsesWith(init);
        loop.getResult(i).replaceAllUsesWith(init);
        continue;
      }
      auto type = cast<MemRefType>(carried.getType());
      Location loc = loop.getLoc();
      OpBuilder b(loop);
      auto buffer = memref::AllocOp::create(b, loc, type);
      allocs.push_back(buffer);
      linalg::CopyOp::create(b, loc, loop.getInitArgs()[i], buffer.getResult());
      // A tile the body allocates for the next iteration and first writes
      // after its last read of the carried one (the next chunk's tile,
      // loaded a chunk ahead) is written into the carried buffer directly:
      // no copy at the end of the body.
      auto fresh = yielded.getDefiningOp<memref::AllocOp>();
      if (fresh && mayWriteInPlace(loop, fresh, carried)) {
        llvm::erase(allocs, fresh);
        fresh.getResult().replaceUsesWithIf(
            buffer.getResult(),
            [&](OpOperand &use) { return use.getOwner() != yield; });
        carried.replaceAllUsesWith(buffer);
        loop.getResult(i).replaceAllUsesWith(buffer);
        yield->setOperand(i, carried);
        fresh->erase();
        continue;
      }
      b.setInsertionPoint(yield);
      linalg::CopyOp::create(b, loc, yielded, buffer.getResult());
      // The iter_arg and the result are always `buffer` now; the loop
      // stops carrying them below.
      carried.replaceAllUsesWith(buffer);
      loop.getResult(i).replaceAllUsesWith(buffer);
    }
    if (kept.size() != loop.getNumRegionIterArgs())
      dropIterArgs(loop, kept);
  }
}
