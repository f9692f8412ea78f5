//===- MatmulPrologues.cpp - elementwise ops into mma accumulators --------===//
//
// A matmul that accumulates into a tile which an elementwise op has just
// written (the state scan's S * 2^g, then S += kg^T v) loads its
// accumulator registers from shared memory after that op's pass over the
// tile and a barrier. Computing the elementwise op's value for each
// accumulator element in the registers instead saves the pass and the
// barrier.
//
//===----------------------------------------------------------------------===//

#include "MatmulPrologues.h"
#include "Barriers.h"
#include "MatmulEpilogues.h"
#include "TensorCore.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {

/// True if `op` can be computed into the accumulator `acc` of a matmul.
bool isFusablePrologue(linalg::GenericOp op, Value acc) {
  auto accType = dyn_cast<MemRefType>(acc.getType());
  if (!accType || !op.hasPureBufferSemantics() || op.getNumLoops() != 2 ||
      op.getNumParallelLoops() != 2 || op.getNumDpsInits() != 1 ||
      op.getDpsInits()[0] != acc)
    return false;
  if (op.getStaticLoopRanges() != SmallVector<int64_t>(accType.getShape()))
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!op.getMatchingIndexingMap(init).isIdentity() ||
      op.payloadUsesValueFromOperand(init))
    return false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!isa<MemRefType>(input->get().getType()) ||
        !op.getMatchingIndexingMap(input).isProjectedPermutation())
      return false;
  }
  Block &body = op.getRegion().front();
  return llvm::all_of(body.without_terminator(), [](Operation &inner) {
    return isMemoryEffectFree(&inner);
  });
}

} // namespace

void mlir::kda::fuseMatmulPrologues(Operation *func, int64_t numThreads) {
  func->walk([&](linalg::MatmulOp matmul) {
    if (loweredWith(matmul) != matmul.getOperation() ||
        fusedEpilogueOf(matmul) || !canUse16BitMmaSync(matmul, numThreads))
      return;
    auto prologue =
        dyn_cast_or_null<linalg::GenericOp>(previousEffectfulOp(matmul));
    if (!prologue || prologue->hasAttr(kFusedEpilogueAttr) ||
        !isFusablePrologue(prologue, matmul.getDpsInits()[0]))
      return;
    prologue->setAttr(kFusedPrologueAttr, UnitAttr::get(func->getContext()));
  });
}

linalg::GenericOp mlir::kda::fusedPrologueOf(Operation *matmul) {
  // (The waits for asynchronous copies and the barriers placed later may
  // stand between them: the prologue runs in the matmul's lowering, after
  // them.)
  Operation *prev = previousEffectfulOp(matmul);
  while (isa_and_nonnull<gpu::BarrierOp, NVVM::CpAsyncWaitGroupOp>(prev))
    prev = previousEffectfulOp(prev);
  auto prologue = dyn_cast_or_null<linalg::GenericOp>(prev);
  if (!prologue || !prologue->hasAttr(kFusedPrologueAttr))
    return nullptr;
  return prologue;
}

Value mlir::kda::emitPrologueElement(RewriterBase &rewriter, Location loc,
                                     linalg::GenericOp prologue, Value row,
                                     Value col) {
  Block &body = prologue.getRegion().front();
  Value coords[] = {row, col};
  IRMapping map;
  for (OpOperand *input : prologue.getDpsInputOperands()) {
    BlockArgument arg = body.getArgument(input->getOperandNumber());
    if (arg.use_empty())
      continue;
    SmallVector<Value> indices;
    for (AffineExpr expr :
         prologue.getMatchingIndexingMap(input).getResults())
      indices.push_back(coords[cast<AffineDimExpr>(expr).getPosition()]);
    map.map(arg, memref::LoadOp::create(rewriter, loc, input->get(), indices));
  }
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), coords[index.getDim()]);
      continue;
    }
    rewriter.clone(inner, map);
  }
  return map.lookupOrDefault(body.getTerminator()->getOperand(0));
}
