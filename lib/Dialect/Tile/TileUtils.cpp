//===- TileUtils.cpp - helpers shared by the tile lowerings ---------------===//

#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

Value kda::tile::emitCombine(OpBuilder &b, Location loc, CombineKind kind,
                             Value lhs, Value rhs) {
  bool isFloat = isa<FloatType>(lhs.getType());
  switch (kind) {
  case CombineKind::add:
    return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
  case CombineKind::max:
    return isFloat ? arith::MaximumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MaxSIOp::create(b, loc, lhs, rhs).getResult();
  case CombineKind::min:
    return isFloat ? arith::MinimumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MinSIOp::create(b, loc, lhs, rhs).getResult();
  }
  llvm_unreachable("unknown combine kind");
}

TypedAttr kda::tile::getCombineIdentity(Builder &b, CombineKind kind, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    switch (kind) {
    case CombineKind::add:
      return b.getFloatAttr(type, 0.0);
    case CombineKind::max:
      return b.getFloatAttr(type, APFloat::getInf(sem, /*Negative=*/true));
    case CombineKind::min:
      return b.getFloatAttr(type, APFloat::getInf(sem, /*Negative=*/false));
    }
  }
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  switch (kind) {
  case CombineKind::add:
    return b.getIntegerAttr(type, 0);
  case CombineKind::max:
    return b.getIntegerAttr(type, APInt::getSignedMinValue(width));
  case CombineKind::min:
    return b.getIntegerAttr(type, APInt::getSignedMaxValue(width));
  }
  llvm_unreachable("unknown combine kind");
}

Value kda::tile::emitRoundToTF32(OpBuilder &b, Location loc, Value value) {
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, value);
  Value half = arith::ConstantIntOp::create(b, loc, i32, 0x1000);
  Value mask = arith::ConstantIntOp::create(b, loc, i32, int64_t(0xFFFFE000u));
  Value rounded = arith::AndIOp::create(
      b, loc, arith::AddIOp::create(b, loc, bits, half), mask);
  return arith::BitcastOp::create(b, loc, b.getF32Type(), rounded);
}

void kda::tile::emitUnitLowerInverses(OpBuilder &b, Location loc,
                                      ValueRange inputs, ValueRange outputs,
                                      Value threadId, int64_t numThreads,
                                      bool transposedOutputs) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // x - l * y, which the backend may fuse into one fma.
  auto contract = arith::FastMathFlagsAttr::get(b.getContext(),
                                                arith::FastMathFlags::contract);
  for (auto [m, input, output] : llvm::enumerate(inputs, outputs)) {
    int64_t n = cast<MemRefType>(input.getType()).getDimSize(0);
    // Column c of matrix m goes to thread (m * n + c) mod numThreads: this
    // thread's first column is (threadId - m * n) mod numThreads.
    int64_t shift = numThreads - static_cast<int64_t>(m) * n % numThreads;
    Value first = arith::RemUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, threadId, index(shift)),
        index(numThreads));
    auto columns =
        scf::ForOp::create(b, loc, first, index(n), index(numThreads));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(columns.getBody());
    Value c = columns.getInductionVar();
    Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f));
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    SmallVector<Value> column;
    for (int64_t r = 0; r < n; ++r) {
      Value row = index(r);
      Value onDiagonal =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, row, c);
      Value x = arith::SelectOp::create(b, loc, onDiagonal, one, zero);
      for (int64_t k = 0; k < r; ++k) {
        Value l =
            memref::LoadOp::create(b, loc, input, ValueRange{row, index(k)});
        Value product = arith::MulFOp::create(b, loc, l, column[k], contract);
        x = arith::SubFOp::create(b, loc, x, product, contract);
      }
      memref::StoreOp::create(b, loc, x, output,
                              transposedOutputs ? ValueRange{c, row}
                                                : ValueRange{row, c});
      column.push_back(x);
    }
  }
}

void kda::tile::lowerUnitLowerInverse(RewriterBase &rewriter,
                                      UnitLowerInverseOp op, Value threadId,
                                      int64_t numThreads) {
  rewriter.setInsertionPoint(op);
  emitUnitLowerInverses(rewriter, op.getLoc(), op.getInputs(), op.getInits(),
                        threadId, numThreads);
  rewriter.eraseOp(op);
}

LogicalResult kda::tile::lowerUnitLowerInverses(
    RewriterBase &rewriter, Operation *root, int64_t numThreads,
    function_ref<Value(OpBuilder &, Location)> threadId, StringRef pass) {
  SmallVector<UnitLowerInverseOp> inverses;
  root->walk([&](UnitLowerInverseOp op) { inverses.push_back(op); });
  for (UnitLowerInverseOp op : inverses) {
    if (!op.getResults().empty())
      return op.emitOpError("must be bufferized before ") << pass;
    rewriter.setInsertionPoint(op);
    lowerUnitLowerInverse(rewriter, op, threadId(rewriter, op.getLoc()),
                          numThreads);
  }
  return success();
}

/// Elements of `type` per lane along its last dimension (of `size`
/// elements) in a 16-byte access: up to 16 bytes, at least one element.
static int64_t sixteenByteElems(RankedTensorType type, int64_t size) {
  int64_t bytes =
      std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
  return std::min<int64_t>(size, std::max<int64_t>(1, 16 / bytes));
}

kda::tile::DistLayoutAttr
kda::tile::getCoalescedLayout(RankedTensorType type, int64_t numWarps) {
  constexpr int64_t kWarpSize = DistLayoutAttr::kWarpSize;
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  int64_t last = shape.back();
  int64_t elemsLast = sixteenByteElems(type, last);
  int64_t lanesLast = std::min<int64_t>(kWarpSize, last / elemsLast);
  int64_t lanesFirst =
      rank == 2 ? std::min<int64_t>(kWarpSize / lanesLast, shape[0]) : 1;
  int64_t warpsFirst = 1, warpsLast = 1;
  if (rank == 2) {
    while (warpsFirst * 2 <= numWarps &&
           shape[0] % (lanesFirst * warpsFirst * 2) == 0)
      warpsFirst *= 2;
  }
  while (warpsFirst * warpsLast * 2 <= numWarps &&
         last % (elemsLast * lanesLast * warpsLast * 2) == 0)
    warpsLast *= 2;
  MLIRContext *ctx = type.getContext();
  int64_t batchLast = last / (warpsLast * lanesLast * elemsLast);
  if (rank == 1)
    return DistLayoutAttr::get(ctx, {warpsLast}, {batchLast}, {1}, {lanesLast},
                               {elemsLast}, {1}, {1});
  int64_t batchFirst = shape[0] / (warpsFirst * lanesFirst);
  return DistLayoutAttr::get(ctx, {warpsFirst, warpsLast},
                             {batchFirst, batchLast}, {1, 1},
                             {lanesFirst, lanesLast}, {1, elemsLast},
                             {lanesLast, 1}, {1, warpsFirst});
}

kda::tile::DistLayoutAttr
kda::tile::getScanLayout(RankedTensorType type, int64_t dim,
                         int64_t numWarps) {
  constexpr int64_t kWarpSize = DistLayoutAttr::kWarpSize;
  ArrayRef<int64_t> shape = type.getShape();
  if (shape.size() != 2 || dim != 0)
    return getCoalescedLayout(type, numWarps);
  int64_t rows = shape[0], columns = shape[1];
  int64_t elems = sixteenByteElems(type, columns);
  int64_t warps = 1;
  while (warps * 2 <= numWarps && columns % (elems * warps * 2) == 0)
    warps *= 2;
  int64_t lanesColumns =
      std::min<int64_t>(kWarpSize, columns / (elems * warps));
  int64_t lanesRows = std::min<int64_t>(kWarpSize / lanesColumns, rows);
  int64_t batchColumns = columns / (elems * warps * lanesColumns);
  return DistLayoutAttr::get(type.getContext(), {1, warps},
                             {rows / lanesRows, batchColumns}, {1, 1},
                             {lanesRows, lanesColumns}, {1, elems},
                             {lanesColumns, 1}, {warps, 1});
}

SmallVector<int64_t> kda::tile::getTransPermutation(TransOp op) {
  if (auto perm = op.getPermutation())
    return SmallVector<int64_t>(*perm);
  int64_t rank = cast<RankedTensorType>(op.getInput().getType()).getRank();
  SmallVector<int64_t> perm;
  for (int64_t i = rank - 1; i >= 0; --i)
    perm.push_back(i);
  return perm;
}

bool kda::tile::hasLaidOutTiles(Operation *kernel) {
  auto laidOut = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && isa_and_nonnull<kda::tile::DistLayoutAttr>(tensor.getEncoding());
  };
  return kernel
      ->walk([&](Operation *op) {
        return llvm::any_of(op->getResultTypes(), laidOut)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

bool kda::tile::distinctKernelArguments(Value a, Value b) {
  return a != b && isa<BlockArgument>(a) && isa<BlockArgument>(b) &&
         isa<func::FuncOp>(a.getParentBlock()->getParentOp()) &&
         a.getParentBlock() == b.getParentBlock();
}
