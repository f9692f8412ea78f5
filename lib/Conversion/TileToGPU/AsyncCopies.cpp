//===- AsyncCopies.cpp - tile loads as cp.async copies --------------------===//
//
// Before this, a tile load ran as a loop of scalar loads, one element per
// thread and iteration, each waiting for global memory before the next was
// issued; a masked load first filled the whole buffer with its pad value
// (another loop and a barrier). Here every thread issues all its pieces of
// all the loads of a group at once, 16 bytes each where alignment allows,
// and waits once.
//
//===----------------------------------------------------------------------===//

#include "AsyncCopies.h"
#include "Barriers.h"
#include "MatmulEpilogues.h"
#include "../Utils/OpaqueValue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using mlir::kda::previousEffectfulOp;

namespace {

/// One tile load: `copy` from `source` (global) into `buffer` (shared,
/// static), whole or, after `fill`, masked to `source`'s sizes.
struct TileLoad {
  linalg::CopyOp copy;
  Operation *fill = nullptr;
  Value source, buffer;
  MemRefType bufferType;
  bool masked = false;
  int64_t pieceElements = 0; // elements per cp.async
  int64_t elementBytes = 0;
};

/// Recognizes a tile load at `copy`.
std::optional<TileLoad> matchTileLoad(linalg::CopyOp copy) {
  if (!copy.hasPureBufferSemantics())
    return std::nullopt;
  TileLoad load;
  load.copy = copy;
  load.source = copy.getInputs()[0];
  Value dst = copy.getOutputs()[0];
  auto srcType = dyn_cast<MemRefType>(load.source.getType());
  auto dstType = dyn_cast<MemRefType>(dst.getType());
  if (!srcType || !dstType || kda::isWorkgroupMemRef(srcType) ||
      !kda::isWorkgroupMemRef(dstType) || srcType.getMemorySpace() ||
      srcType.getRank() < 1 || srcType.getRank() > 2)
    return std::nullopt;
  Type element = srcType.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  load.elementBytes = element.getIntOrFloatBitWidth() / 8;

  // The whole buffer, or its leading corner.
  load.buffer = kda::tileOfView(dst, srcType, load.masked);
  if (!load.buffer)
    return std::nullopt;
  load.bufferType = cast<MemRefType>(load.buffer.getType());
  if (!load.bufferType.hasStaticShape())
    return std::nullopt;

  // A masked load needs its zero fill right before it.
  if (load.masked) {
    Operation *prev = previousEffectfulOp(copy);
    if (!prev || !kda::isZeroFillOf(prev, load.buffer))
      return std::nullopt;
    load.fill = prev;
  }

  // Unit innermost strides; the piece size divides the buffer's rows and
  // its static layout keeps every piece aligned.
  SmallVector<int64_t> srcStrides;
  int64_t srcOffset;
  if (failed(srcType.getStridesAndOffset(srcStrides, srcOffset)) ||
      srcStrides.back() != 1)
    return std::nullopt;
  load.pieceElements =
      kda::largestPieceElements(load.bufferType, load.elementBytes);
  if (!load.pieceElements)
    return std::nullopt;
  return load;
}

Value constant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Copies the first `count` elements of the piece at `at` from
/// `load.source` into `load.buffer` with plain loads and stores, and writes
/// zeros over the rest of the piece.
void emitCutPiece(OpBuilder &b, Location loc, const TileLoad &load,
                  ArrayRef<Value> at, Value count) {
  Type element = load.bufferType.getElementType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  auto loop = scf::ForOp::create(b, loc, constant(b, loc, 0),
                                 constant(b, loc, load.pieceElements),
                                 constant(b, loc, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value e = loop.getInductionVar();
  auto shifted = [&](ArrayRef<Value> base) {
    SmallVector<Value> indices(base);
    indices.back() = arith::AddIOp::create(b, loc, indices.back(), e);
    return indices;
  };
  Value inside =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, e, count);
  auto pick = scf::IfOp::create(b, loc, element, inside,
                                /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(pick.thenBlock());
    Value v = memref::LoadOp::create(b, loc, load.source, shifted(at));
    scf::YieldOp::create(b, loc, v);
    b.setInsertionPointToStart(pick.elseBlock());
    scf::YieldOp::create(b, loc, zero);
  }
  memref::StoreOp::create(b, loc, pick.getResult(0), load.buffer, shifted(at));
}

/// Rounds of pieces per thread issued as straight-line code; a thread with
/// more (few threads for large tiles, such as threads = 1) issues
/// its whole rounds from a loop, so that code size stays bounded.
constexpr int64_t kMaxUnrolledRounds = 32;

/// Issues the calling thread's pieces of `load`, as whole pieces or, with
/// `masked`, cut to the box (see emitAsyncCopies); returns the tokens of
/// those not committed where they were issued.
void emitPieces(OpBuilder &b, Location loc, const TileLoad &load, bool masked,
                Value tid, int64_t numThreads, SmallVectorImpl<Value> &tokens) {
  ArrayRef<int64_t> shape = load.bufferType.getShape();
  int64_t rank = shape.size();
  int64_t piece = load.pieceElements;
  int64_t piecesPerRow = shape.back() / piece;
  int64_t numPieces = load.bufferType.getNumElements() / piece;
  int64_t rounds = llvm::divideCeil(numPieces, numThreads);
  Value zero = constant(b, loc, 0);
  Value pieceSize = constant(b, loc, piece);
  SmallVector<Value> sizes;
  if (masked)
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(memref::DimOp::create(b, loc, load.source, d));
  IntegerAttr pieceAttr = b.getIndexAttr(piece);
  UnitAttr bypassL1 =
      piece * load.elementBytes == 16 ? b.getUnitAttr() : UnitAttr();

  // Piece `index` (of the tile's pieces, row-major); its token is committed
  // where it is issued unless `keepToken`, when it is returned.
  auto emitPiece = [&](OpBuilder &b, Value index, bool keepToken) -> Value {
    SmallVector<Value> at;
    if (rank == 2) {
      Value perRow = constant(b, loc, piecesPerRow);
      at.push_back(arith::DivUIOp::create(b, loc, index, perRow));
      Value col = arith::RemUIOp::create(b, loc, index, perRow);
      at.push_back(arith::MulIOp::create(b, loc, col, pieceSize));
    } else {
      at.push_back(arith::MulIOp::create(b, loc, index, pieceSize));
    }
    if (masked) {
      // Elements of the piece inside the box: min(size - col, piece)
      // clamped at 0 along the last dimension, 0 for rows past the box.
      Value left = arith::SubIOp::create(b, loc, sizes.back(), at.back());
      Value count = arith::MaxSIOp::create(
          b, loc, arith::MinSIOp::create(b, loc, left, pieceSize), zero);
      if (rank == 2) {
        Value rowIn = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            at[0], sizes[0]);
        count = arith::SelectOp::create(b, loc, rowIn, count, zero);
      }
      // Only whole pieces go through cp.async (see emitAsyncCopies).
      Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          count, pieceSize);
      auto split = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
      OpBuilder::InsertionGuard pieceGuard(b);
      b.setInsertionPointToStart(split.thenBlock());
      Value token = nvgpu::DeviceAsyncCopyOp::create(
          b, loc, load.buffer, at, load.source, at, pieceAttr, Value(),
          bypassL1);
      // Committed here: the token does not leave the branch.
      nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, ValueRange{token});
      b.setInsertionPointToStart(split.elseBlock());
      emitCutPiece(b, loc, load, at, count);
      return Value();
    }
    Value token = nvgpu::DeviceAsyncCopyOp::create(
        b, loc, load.buffer, at, load.source, at, pieceAttr, Value(), bypassL1);
    if (keepToken)
      return token;
    nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, ValueRange{token});
    return Value();
  };

  // Whole rounds (every thread has a piece), then a last partial round.
  int64_t wholeRounds = numPieces / numThreads;
  int64_t firstRound = 0;
  if (rounds > kMaxUnrolledRounds) {
    auto loop = scf::ForOp::create(b, loc, zero, constant(b, loc, wholeRounds),
                                   constant(b, loc, 1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value index = arith::AddIOp::create(
        b, loc, tid,
        arith::MulIOp::create(b, loc, loop.getInductionVar(),
                              constant(b, loc, numThreads)));
    // Committed here: a token does not leave the loop.
    (void)emitPiece(b, index, /*keepToken=*/false);
    firstRound = wholeRounds;
  }
  for (int64_t round = firstRound; round < rounds; ++round) {
    OpBuilder::InsertionGuard guard(b);
    Value index = arith::AddIOp::create(b, loc, tid,
                                        constant(b, loc, round * numThreads));
    // The last round may have fewer pieces than threads.
    bool partial = (round + 1) * numThreads > numPieces;
    if (partial) {
      Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           index, constant(b, loc, numPieces));
      auto inRange = scf::IfOp::create(b, loc, exists, /*withElseRegion=*/false);
      b.setInsertionPointToStart(inRange.thenBlock());
    }
    // Committed here when guarded: the token does not leave the guard.
    if (Value token = emitPiece(b, index, /*keepToken=*/!partial))
      tokens.push_back(token);
  }
}

/// `source` (a global memref of rank 2 whose row stride is dynamic) viewed
/// with that stride passed through an inline `mov` that also takes `trip`
/// (the induction variable of the loop around the copy), so LLVM sees a
/// stride that changes in every trip. With the stride as it is, LLVM's
/// reassociation splits each piece's address into a loop-invariant part
/// (the piece's row times the stride) and the trip's offset, and keeps one
/// invariant 64-bit address per piece in registers across the loop: 246
/// registers in the state scan with dynamic head counts against 126 with
/// static ones. With the opaque stride the pieces' addresses are recomputed
/// in each trip from one base. Tying the `mov` to the trip rather than to
/// the view's offset gives the loads of one buffer in one trip the same
/// inputs (the varlen inter_solve at K = 64 spilled 56 bytes with the
/// offset, 32 with the trip). Other sources are returned as they are.
Value withOpaqueRowStride(OpBuilder &b, Location loc, Value source,
                          Value trip) {
  auto type = cast<MemRefType>(source.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (type.getRank() != 2 || failed(type.getStridesAndOffset(strides, offset)) ||
      !ShapedType::isDynamic(strides[0]))
    return source;
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, source);
  Type i64 = b.getI64Type();
  auto toI64 = [&](Value v) {
    return arith::IndexCastUIOp::create(b, loc, i64, v).getResult();
  };
  Value stride = kda::createOpaqueI64(b, loc, toI64(metadata.getStrides()[0]),
                                     toI64(trip));
  Value opaque =
      arith::IndexCastUIOp::create(b, loc, b.getIndexType(), stride);
  OpFoldResult newOffset =
      ShapedType::isDynamic(offset) ? OpFoldResult(metadata.getOffset())
                                    : OpFoldResult(b.getIndexAttr(offset));
  SmallVector<OpFoldResult> sizes;
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    sizes.push_back(ShapedType::isDynamic(size)
                        ? OpFoldResult(metadata.getSizes()[d])
                        : OpFoldResult(b.getIndexAttr(size)));
  // (Tile loads have unit innermost strides: matchTileLoad.)
  SmallVector<OpFoldResult> newStrides = {opaque, b.getIndexAttr(1)};
  return memref::ReinterpretCastOp::create(b, loc, type, source, newOffset,
                                           sizes, newStrides);
}

/// Issues the calling thread's pieces of `load`; returns their tokens. A
/// masked load whose box covers the whole tile (every tile of a sequence
/// but its last chunk) takes the unmasked copies; otherwise each piece is
/// masked: a piece wholly inside the box is one cp.async, and a piece the
/// box cuts, or one outside it, is copied element by element and
/// zero-filled, so that no copy names a byte past the box (a cp.async with
/// a smaller source size reads only those bytes but names all of them, and
/// past the end of an allocation memory checkers report it).
void emitAsyncCopies(OpBuilder &b, Location loc, const TileLoad &original,
                     Value tid, int64_t numThreads,
                     SmallVectorImpl<Value> &tokens) {
  TileLoad load = original;
  // Only a load in a loop, of which each thread copies several pieces, has
  // addresses for LLVM to hoist (withOpaqueRowStride).
  const int64_t pieces =
      load.bufferType.getNumElements() / load.pieceElements;
  if (auto loop = original.copy->getParentOfType<scf::ForOp>();
      loop && pieces > numThreads)
    load.source = withOpaqueRowStride(b, loc, load.source,
                                      loop.getInductionVar());
  if (!load.masked)
    return emitPieces(b, loc, load, /*masked=*/false, tid, numThreads, tokens);
  Value full;
  for (auto [d, size] : llvm::enumerate(load.bufferType.getShape())) {
    Value dim = memref::DimOp::create(b, loc, load.source, d);
    Value covers = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, dim,
                                         constant(b, loc, size));
    full = full ? arith::AndIOp::create(b, loc, full, covers).getResult()
                : covers;
  }
  auto branch = scf::IfOp::create(b, loc, full, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  SmallVector<Value> whole;
  emitPieces(b, loc, load, /*masked=*/false, tid, numThreads, whole);
  nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, whole);
  b.setInsertionPointToStart(branch.elseBlock());
  emitPieces(b, loc, load, /*masked=*/true, tid, numThreads, tokens);
}

/// Rewrites one group of consecutive tile loads.
void rewriteGroup(IRRewriter &rewriter, ArrayRef<TileLoad> group,
                  int64_t numThreads) {
  Location loc = group.back().copy->getLoc();
  rewriter.setInsertionPoint(group.back().copy);
  Value aligned;
  for (const TileLoad &load : group) {
    Value cond = kda::buildPiecesAlignedCondition(
        rewriter, loc, load.source, load.elementBytes, load.pieceElements);
    aligned =
        aligned
            ? arith::AndIOp::create(rewriter, loc, aligned, cond).getResult()
            : cond;
  }
  gpu::BarrierOp::create(rewriter, loc);
  auto branch = scf::IfOp::create(rewriter, loc, aligned,
                                  /*withElseRegion=*/true);
  // Fallback: the original fills and copies, in order.
  for (const TileLoad &load : group) {
    if (load.fill)
      rewriter.moveOpBefore(load.fill, branch.elseBlock()->getTerminator());
    rewriter.moveOpBefore(load.copy, branch.elseBlock()->getTerminator());
  }
  rewriter.setInsertionPointToStart(branch.thenBlock());
  Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  SmallVector<Value> tokens;
  for (const TileLoad &load : group)
    emitAsyncCopies(rewriter, loc, load, tid, numThreads, tokens);
  // (With no whole-round pieces, an empty group: the guarded ones were
  // committed where they were issued.)
  nvgpu::DeviceAsyncCreateGroupOp::create(rewriter, loc, tokens);
  // The wait and the barrier that publishes the copies go right before the
  // first op that touches the group's bytes (or the end of the block): the
  // work in between overlaps the copies. Waiting for all groups, not just
  // this one, keeps the count of groups in flight out of the question; in
  // the fallback branch there is nothing to wait for.
  SmallVector<Value> buffers;
  for (const TileLoad &load : group)
    buffers.push_back(load.buffer);
  Operation *firstUse = branch->getNextNode();
  while (!firstUse->hasTrait<OpTrait::IsTerminator>() &&
         !kda::touchesSharedBytesOf(firstUse, buffers))
    firstUse = firstUse->getNextNode();
  // Copies that nothing after them in a loop body touches fill the tiles
  // of the next iteration (loaded an iteration ahead): the wait goes
  // before the first op of the body that touches them, so the copies
  // overlap the rest of this iteration and the start of the next, and
  // once more after the loop (for the last iteration's copies).
  Operation *afterLoop = nullptr;
  if (firstUse->hasTrait<OpTrait::IsTerminator>()) {
    if (auto loop = dyn_cast<scf::ForOp>(firstUse->getParentOp())) {
      for (Operation &op : *loop.getBody()) {
        if (&op == branch.getOperation())
          break;
        if (kda::touchesSharedBytesOf(&op, buffers)) {
          firstUse = &op;
          afterLoop = loop;
          break;
        }
      }
    }
  }
  // A chained matmul or fused epilogue runs in the lowering of its chain's
  // first matmul: wait before that one (nothing may come between them).
  if (!firstUse->hasTrait<OpTrait::IsTerminator>())
    firstUse = kda::loweredWith(firstUse);
  rewriter.setInsertionPoint(firstUse);
  NVVM::CpAsyncWaitGroupOp::create(rewriter, loc, 0);
  gpu::BarrierOp::create(rewriter, loc);
  if (afterLoop) {
    rewriter.setInsertionPointAfter(afterLoop);
    NVVM::CpAsyncWaitGroupOp::create(rewriter, loc, 0);
    gpu::BarrierOp::create(rewriter, loc);
  }
}

} // namespace

void mlir::kda::lowerTileLoadsToAsyncCopies(gpu::GPUFuncOp func,
                                            int64_t numThreads) {
  // Group consecutive loads, in program order within each block.
  SmallVector<SmallVector<TileLoad>> groups;
  func.walk([&](linalg::CopyOp copy) {
    std::optional<TileLoad> load = matchTileLoad(copy);
    if (!load)
      return;
    Operation *first = load->fill ? load->fill : load->copy.getOperation();
    bool joins = false;
    if (!groups.empty()) {
      TileLoad &last = groups.back().back();
      joins = previousEffectfulOp(first) == last.copy.getOperation() &&
              llvm::none_of(groups.back(), [&](const TileLoad &other) {
                return other.buffer == load->buffer;
              });
    }
    if (!joins)
      groups.emplace_back();
    groups.back().push_back(*load);
  });
  IRRewriter rewriter(func.getContext());
  for (ArrayRef<TileLoad> group : groups)
    rewriteGroup(rewriter, group, numThreads);
}

/// True if `value` is a +0 constant (float or integer).
static bool isPositiveZero(Value value) {
  return matchPattern(value, m_PosZeroFloat()) || matchPattern(value, m_Zero());
}

/// True if `op` sets every element of `buffer` to +0.
bool mlir::kda::isZeroFillOf(Operation *op, Value buffer) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.getOutputs()[0] == buffer &&
           isPositiveZero(fill.getInputs()[0]);
  if (auto map = dyn_cast<linalg::MapOp>(op)) {
    if (!map.getInputs().empty() || map.getInit() != buffer)
      return false;
    // The body may keep unused index ops from its tensor form.
    Block &body = map.getMapper().front();
    if (!llvm::all_of(body.without_terminator(),
                      [](Operation &op) { return isMemoryEffectFree(&op); }))
      return false;
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    return yield.getNumOperands() == 1 && isPositiveZero(yield.getOperand(0));
  }
  return false;
}

void mlir::kda::removeRedundantBarriers(gpu::GPUFuncOp func) {
  SmallVector<gpu::BarrierOp> redundant;
  func.walk([&](gpu::BarrierOp barrier) {
    if (isa_and_nonnull<gpu::BarrierOp>(previousEffectfulOp(barrier)))
      redundant.push_back(barrier);
  });
  for (gpu::BarrierOp barrier : redundant)
    barrier.erase();
}

int64_t mlir::kda::largestPieceElements(MemRefType buffer,
                                        int64_t elementBytes) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(buffer.getStridesAndOffset(strides, offset)) ||
      !buffer.hasStaticShape() || ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic) || strides.back() != 1)
    return 0;
  int64_t cols = buffer.getShape().back();
  for (int64_t bytes : {16, 8, 4}) {
    if (bytes % elementBytes != 0)
      continue;
    int64_t piece = bytes / elementBytes;
    bool fits = cols % piece == 0 && offset % piece == 0 &&
                llvm::all_of(ArrayRef<int64_t>(strides).drop_back(),
                             [&](int64_t s) { return s % piece == 0; });
    if (fits)
      return piece;
  }
  return 0;
}

Value mlir::kda::buildPiecesAlignedCondition(OpBuilder &b, Location loc,
                                             Value global, int64_t elementBytes,
                                             int64_t pieceElements) {
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value pointer =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, global);
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, global);
  Value offsetBytes = arith::MulIOp::create(b, loc, metadata.getOffset(),
                                            constant(elementBytes));
  Value address = arith::AddIOp::create(b, loc, pointer, offsetBytes);
  Value zero = constant(0);
  Value misalign = arith::RemUIOp::create(
      b, loc, address, constant(pieceElements * elementBytes));
  Value aligned =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, misalign, zero);
  if (cast<MemRefType>(global.getType()).getRank() == 2) {
    Value rowStride = metadata.getStrides()[0];
    Value rem =
        arith::RemUIOp::create(b, loc, rowStride, constant(pieceElements));
    Value rowsAligned =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem, zero);
    aligned = arith::AndIOp::create(b, loc, aligned, rowsAligned);
  }
  return aligned;
}

Value mlir::kda::tileOfView(Value view, MemRefType other, bool &corner) {
  auto viewType = cast<MemRefType>(view.getType());
  corner = false;
  if (viewType.hasStaticShape() && other.hasStaticShape() &&
      viewType.getShape() == other.getShape())
    return view;
  auto subview = view.getDefiningOp<memref::SubViewOp>();
  if (!subview ||
      !llvm::all_of(subview.getMixedOffsets(),
                    [](OpFoldResult o) { return isZeroInteger(o); }) ||
      !llvm::all_of(subview.getMixedStrides(),
                    [](OpFoldResult s) { return isOneInteger(s); }) ||
      subview.getSourceType().getRank() != other.getRank())
    return Value();
  corner = true;
  return subview.getSource();
}
