//===- VectorStores.cpp - tile stores as 16-byte vector stores ------------===//
//
// Distributed like any linalg op, a tile store copies one element per
// thread and iteration, with its index arithmetic and bounds checks for
// every element (a 64 x 32 bf16 tile: 16 iterations of 2-byte stores per
// thread). Here each thread moves whole 16-byte pieces: a vector load from
// the shared tile and a vector store to global memory, the box checked once
// per piece.
//
//===----------------------------------------------------------------------===//

#include "VectorStores.h"
#include "AsyncCopies.h"
#include "Barriers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace {

/// One tile store: `copy` from `buffer` (shared, static), whole or its
/// leading corner (`masked`), into `dest` (global).
struct TileStore {
  Value buffer, dest;
  MemRefType bufferType;
  bool masked = false;
  int64_t pieceElements = 0;
  int64_t elementBytes = 0;
};

/// Recognizes a tile store at `copy`.
std::optional<TileStore> matchTileStore(linalg::CopyOp copy) {
  if (!copy.hasPureBufferSemantics())
    return std::nullopt;
  TileStore store;
  Value src = copy.getInputs()[0];
  store.dest = copy.getOutputs()[0];
  auto srcType = dyn_cast<MemRefType>(src.getType());
  auto dstType = dyn_cast<MemRefType>(store.dest.getType());
  if (!srcType || !dstType || !kda::isWorkgroupMemRef(srcType) ||
      dstType.getMemorySpace() || dstType.getRank() < 1 ||
      dstType.getRank() > 2 || srcType.getRank() != dstType.getRank())
    return std::nullopt;
  Type element = dstType.getElementType();
  if (element != srcType.getElementType() || !element.isIntOrFloat() ||
      element.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  store.elementBytes = element.getIntOrFloatBitWidth() / 8;

  // The whole shared tile, or its leading corner.
  store.buffer = kda::tileOfView(src, dstType, store.masked);
  if (!store.buffer)
    return std::nullopt;
  store.bufferType = cast<MemRefType>(store.buffer.getType());

  SmallVector<int64_t> dstStrides;
  int64_t dstOffset;
  if (failed(dstType.getStridesAndOffset(dstStrides, dstOffset)) ||
      dstStrides.back() != 1)
    return std::nullopt;
  store.pieceElements =
      kda::largestPieceElements(store.bufferType, store.elementBytes);
  if (store.pieceElements < 2)
    return std::nullopt;
  return store;
}

/// The calling thread's pieces of `store`.
void emitPieceCopies(OpBuilder &b, Location loc, const TileStore &store,
                     Value tid, int64_t numThreads) {
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  ArrayRef<int64_t> shape = store.bufferType.getShape();
  int64_t rank = shape.size();
  int64_t piece = store.pieceElements;
  int64_t pieceBytes = piece * store.elementBytes;
  int64_t piecesPerRow = shape.back() / piece;
  int64_t numPieces = store.bufferType.getNumElements() / piece;
  int64_t rounds = llvm::divideCeil(numPieces, numThreads);
  auto vectorType =
      VectorType::get({piece}, store.bufferType.getElementType());
  SmallVector<Value> sizes;
  if (store.masked)
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(memref::DimOp::create(b, loc, store.dest, d));

  auto copyPiece = [&](OpBuilder &b, ValueRange at) {
    Value v = vector::LoadOp::create(b, loc, vectorType, store.buffer, at,
                                     /*nontemporal=*/false,
                                     llvm::MaybeAlign(pieceBytes));
    vector::StoreOp::create(b, loc, v, store.dest, at, /*nontemporal=*/false,
                            llvm::MaybeAlign(pieceBytes));
  };

  for (int64_t round = 0; round < rounds; ++round) {
    OpBuilder::InsertionGuard guard(b);
    Value index = arith::AddIOp::create(b, loc, tid,
                                        constant(round * numThreads));
    // The last round may have fewer pieces than threads.
    if ((round + 1) * numThreads > numPieces) {
      Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           index, constant(numPieces));
      auto inRange = scf::IfOp::create(b, loc, exists, /*withElse=*/false);
      b.setInsertionPointToStart(inRange.thenBlock());
    }
    SmallVector<Value> at;
    if (rank == 2) {
      Value perRow = constant(piecesPerRow);
      at.push_back(arith::DivUIOp::create(b, loc, index, perRow));
      Value col = arith::RemUIOp::create(b, loc, index, perRow);
      at.push_back(arith::MulIOp::create(b, loc, col, constant(piece)));
    } else {
      at.push_back(arith::MulIOp::create(b, loc, index, constant(piece)));
    }
    if (!store.masked) {
      copyPiece(b, at);
      continue;
    }
    // Inside the box: the whole piece by vectors; a piece the box cuts,
    // element by element up to the box's edge; nothing past it.
    Value col = at.back();
    Value left = arith::SubIOp::create(b, loc, sizes.back(), col);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                         left, constant(piece));
    Value end = arith::MaxSIOp::create(
        b, loc, arith::MinSIOp::create(b, loc, sizes.back(),
                                       arith::AddIOp::create(
                                           b, loc, col, constant(piece))),
        col);
    if (rank == 2) {
      Value rowIn = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          at[0], sizes[0]);
      inside = arith::AndIOp::create(b, loc, inside, rowIn);
      end = arith::SelectOp::create(b, loc, rowIn, end, col);
    }
    auto branch = scf::IfOp::create(b, loc, inside, /*withElse=*/true);
    b.setInsertionPointToStart(branch.thenBlock());
    copyPiece(b, at);
    b.setInsertionPointToStart(branch.elseBlock());
    auto loop = scf::ForOp::create(b, loc, col, end, constant(1));
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> element = at;
    element.back() = loop.getInductionVar();
    Value v = memref::LoadOp::create(b, loc, store.buffer, element);
    memref::StoreOp::create(b, loc, v, store.dest, element);
  }
}

} // namespace

bool mlir::kda::isVectorizableTileStore(linalg::CopyOp copy) {
  return matchTileStore(copy).has_value();
}

bool mlir::kda::vectorizeTileStore(RewriterBase &rewriter,
                                   linalg::CopyOp copy, int64_t numThreads) {
  std::optional<TileStore> store = matchTileStore(copy);
  if (!store)
    return false;
  Location loc = copy.getLoc();
  rewriter.setInsertionPoint(copy);
  Value aligned = buildPiecesAlignedCondition(
      rewriter, loc, store->dest, store->elementBytes, store->pieceElements);
  auto branch = scf::IfOp::create(rewriter, loc, aligned, /*withElse=*/true);
  rewriter.moveOpBefore(copy, branch.elseBlock()->getTerminator());
  rewriter.setInsertionPointToStart(branch.thenBlock());
  Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  emitPieceCopies(rewriter, loc, *store, tid, numThreads);
  return true;
}
