//===- MatmulEpilogues.cpp - elementwise ops on mma accumulators ----------===//
//
// A dot followed by elementwise math on its result (a cast to bf16, u - w S,
// a mask) would store the f32 accumulator to shared memory, wait at a
// barrier, and read it back in another thread layout. Applied to the
// accumulator registers instead, the math runs in the threads that hold
// them, and the accumulator takes no shared memory.
//
//===----------------------------------------------------------------------===//

#include "MatmulEpilogues.h"
#include "MatmulPrologues.h"
#include "AsyncCopies.h"
#include "Barriers.h"
#include "TensorCore.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace {

/// True if `op` can be applied to the accumulator `acc` of `matmul`
/// element by element, at the matmul.
bool isFusableEpilogue(linalg::GenericOp op, Value acc,
                       linalg::MatmulOp matmul, DominanceInfo &dominance) {
  // A static allocation after the matmul (the epilogue's output, allocated
  // where bufferization needed it) can move up to it.
  auto availableAt = [&](Value value, Operation *point) {
    if (auto alloc = value.getDefiningOp<memref::AllocOp>();
        alloc && alloc->getNumOperands() == 0 &&
        alloc->getBlock() == point->getBlock())
      return true;
    return dominance.properlyDominates(value, point);
  };
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 ||
      op.getNumLoops() != 2 || !op.hasPureBufferSemantics())
    return false;
  auto accType = cast<MemRefType>(acc.getType());
  Value out = op.getDpsInits()[0];
  if (out == acc || llvm::count(op.getDpsInputs(), acc) != 1)
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || type.getShape() != accType.getShape() ||
        !op.getMatchingIndexingMap(&operand).isIdentity() ||
        !availableAt(operand.get(), matmul))
      return false;
  }
  // The body: side-effect-free ops on values available at the matmul.
  WalkResult body = op.getRegion().walk([&](Operation *inner) {
    if (!isa<linalg::YieldOp>(inner) && !isMemoryEffectFree(inner))
      return WalkResult::interrupt();
    for (Value operand : inner->getOperands())
      if (!op.getRegion().isAncestor(operand.getParentRegion()) &&
          !availableAt(operand, matmul))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !body.wasInterrupted();
}

/// True if `op` writes every element of `buffer` without reading any: a
/// zero fill, or a linalg op with parallel loops that has `buffer` as its
/// only operand through an identity map, as an init whose value the body
/// does not use.
bool overwritesWithoutReading(Operation *op, Value buffer) {
  if (kda::isZeroFillOf(op, buffer))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumReductionLoops() != 0)
    return false;
  bool writes = false;
  for (OpOperand &operand : op->getOpOperands()) {
    if (operand.get() != buffer)
      continue;
    if (!linalgOp.isDpsInit(&operand) ||
        !linalgOp.getMatchingIndexingMap(&operand).isIdentity() ||
        linalgOp.payloadUsesValueFromOperand(&operand))
      return false;
    writes = true;
  }
  return writes;
}

/// The buffer that `value` is a view of (through view ops), or `value`.
Value rootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

} // namespace

void kda::fuseMatmulEpilogues(Operation *func, int64_t numThreads) {
  SmallVector<linalg::MatmulOp> matmuls;
  func->walk([&](linalg::MatmulOp op) {
    if (canUse16BitMmaSync(op, numThreads))
      matmuls.push_back(op);
  });
  DominanceInfo dominance(func);
  for (linalg::MatmulOp matmul : matmuls) {
    if (matmul->hasAttr(kChainedMatmulAttr))
      continue;
    Value acc = matmul.getDpsInits()[0];
    auto alloc = acc.getDefiningOp<memref::AllocOp>();
    // Matmuls right after it into the same accumulator, whose operands
    // exist at it (their K loops run there).
    SmallVector<linalg::MatmulOp> chain{matmul};
    Operation *next = nextEffectfulOp(matmul);
    while (auto more = dyn_cast_or_null<linalg::MatmulOp>(next)) {
      MemRefType type = cast<MemRefType>(acc.getType());
      if (more.getDpsInits()[0] != acc ||
          !canUse16BitMmaSync(more, numThreads) ||
          cast<MemRefType>(more.getDpsInits()[0].getType()) != type ||
          llvm::any_of(more.getDpsInputs(), [&](Value v) {
            return !dominance.properlyDominates(v, matmul);
          }))
        break;
      chain.push_back(more);
      next = nextEffectfulOp(more);
    }
    auto epilogue = dyn_cast_or_null<linalg::GenericOp>(next);
    if (!alloc || !epilogue ||
        !isFusableEpilogue(epilogue, acc, matmul, dominance))
      continue;
    // The accumulator's users: one zero fill before the matmul, the matmul
    // and the epilogue.
    // Later users are allowed when the first op after the epilogue that
    // touches the accumulator overwrites all of it without reading it: the
    // chain's result is then never read from memory (but the buffer keeps
    // its bytes for those users).
    Operation *fill = nullptr;
    bool onlyThese = true, laterUsers = false;
    Block *block = epilogue->getBlock();
    for (Operation *user : acc.getUsers()) {
      if (user == epilogue.getOperation() ||
          llvm::is_contained(chain, dyn_cast<linalg::MatmulOp>(user)))
        continue;
      if (!fill && isZeroFillOf(user, acc) &&
          user->getBlock() == matmul->getBlock() &&
          user->isBeforeInBlock(matmul)) {
        fill = user;
        continue;
      }
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (inBlock && epilogue->isBeforeInBlock(inBlock)) {
        laterUsers = true;
        continue;
      }
      onlyThese = false;
    }
    if (laterUsers) {
      Operation *first = nextEffectfulOp(epilogue);
      while (first && !first->isAncestor(acc.getDefiningOp()) &&
             llvm::none_of(acc.getUsers(), [&](Operation *user) {
               return first->isAncestor(user);
             }))
        first = nextEffectfulOp(first);
      if (!first || !overwritesWithoutReading(first, acc))
        onlyThese = false;
    }
    if (!onlyThese || !fill)
      continue;
    // Writing an operand needs a barrier between the mma and the stores,
    // which all threads reach only if every warp has one tile.
    Value out = epilogue.getDpsInits()[0];
    bool writesOperand = llvm::any_of(chain, [&](linalg::MatmulOp part) {
      return llvm::any_of(part.getDpsInputs(), [&](Value operand) {
        return rootBuffer(operand) == rootBuffer(out);
      });
    });
    ArrayRef<int64_t> shape = cast<MemRefType>(acc.getType()).getShape();
    if (writesOperand &&
        numWarpTilesOf16BitMmaSync(shape[0], shape[1], numThreads) !=
            numThreads / 32)
      continue;
    fill->erase();
    UnitAttr unit = UnitAttr::get(func->getContext());
    matmul->setAttr(kZeroAccumulatorAttr, unit);
    matmul->setAttr(kMatmulEpilogueAttr,
                    BoolAttr::get(func->getContext(), writesOperand));
    for (linalg::MatmulOp part : ArrayRef(chain).drop_front())
      part->setAttr(kChainedMatmulAttr, unit);
    epilogue->setAttr(kFusedEpilogueAttr, unit);
    for (Value operand : epilogue->getOperands())
      if (auto outAlloc = operand.getDefiningOp<memref::AllocOp>();
          outAlloc && outAlloc->getBlock() == matmul->getBlock() &&
          matmul->isBeforeInBlock(outAlloc))
        outAlloc->moveBefore(matmul);
    if (!laterUsers)
      alloc->setAttr(kRegistersOnlyAttr, unit);
  }
}

bool kda::epilogueWritesOperand(Operation *matmul) {
  auto attr = matmul->getAttrOfType<BoolAttr>(kMatmulEpilogueAttr);
  return attr && attr.getValue();
}

SmallVector<linalg::MatmulOp> kda::matmulChainOf(Operation *head) {
  SmallVector<linalg::MatmulOp> chain;
  if (auto matmul = dyn_cast<linalg::MatmulOp>(head))
    chain.push_back(matmul);
  for (Operation *next = nextEffectfulOp(head);
       next && next->hasAttr(kChainedMatmulAttr); next = nextEffectfulOp(next))
    chain.push_back(cast<linalg::MatmulOp>(next));
  return chain;
}

Operation *kda::loweredWith(Operation *op) {
  // A fused prologue goes with the matmul right after it.
  if (op->hasAttr(kFusedPrologueAttr))
    if (Operation *next = nextEffectfulOp(op))
      return loweredWith(next);
  while (op->hasAttr(kChainedMatmulAttr) || op->hasAttr(kFusedEpilogueAttr)) {
    Operation *prev = previousEffectfulOp(op);
    if (!prev)
      break;
    op = prev;
  }
  return op;
}

linalg::GenericOp kda::fusedEpilogueOf(Operation *matmul) {
  if (!matmul->hasAttr(kMatmulEpilogueAttr))
    return nullptr;
  SmallVector<linalg::MatmulOp> chain = matmulChainOf(matmul);
  auto epilogue =
      dyn_cast_or_null<linalg::GenericOp>(nextEffectfulOp(chain.back()));
  if (!epilogue || !epilogue->hasAttr(kFusedEpilogueAttr))
    return nullptr;
  return epilogue;
}

void kda::emitEpilogueElement(RewriterBase &rewriter, Location loc,
                              linalg::GenericOp epilogue, Value acc,
                              Value value, Value row, Value col) {
  Block &body = epilogue.getRegion().front();
  IRMapping map;
  for (OpOperand &operand : epilogue->getOpOperands()) {
    BlockArgument arg = body.getArgument(operand.getOperandNumber());
    if (epilogue.isDpsInput(&operand) && operand.get() == acc)
      map.map(arg, value);
    else if (!arg.use_empty())
      map.map(arg, memref::LoadOp::create(rewriter, loc, operand.get(),
                                          ValueRange{row, col}));
  }
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), index.getDim() == 0 ? row : col);
      continue;
    }
    rewriter.clone(inner, map);
  }
  Value result = map.lookupOrDefault(body.getTerminator()->getOperand(0));
  memref::StoreOp::create(rewriter, loc, result, epilogue.getDpsInits()[0],
                          ValueRange{row, col});
}
