//===- TileToLinalg.cpp - tile DSL ops to linalg on tensors ---------------===//
//
// Lowers the compute and memory ops of tile kernels to linalg, tensor and
// bufferization ops on tensors. Program ids and launches are kept; they are
// lowered by the GPU or CPU grid passes.
//
//===----------------------------------------------------------------------===//

#include "kda/Conversion/Passes.h"
#include "kda/Dialect/Tile/TileOps.h"
#include "kda/Dialect/Tile/TileUtils.h"

#include "SiblingReductions.h"
#include "TransposeFolding.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Threading.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kda {
#define GEN_PASS_DEF_CONVERTTILETOLINALGPASS
#include "Conversion/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;
using namespace mlir::kda::tile;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// An empty tensor of the given static type.
Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}



/// A tensor of `type` filled with `value`.
Value createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                   Value value) {
  Value empty = createEmpty(b, loc, type);
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

/// Identity affine maps for an elementwise generic of rank `rank`.
SmallVector<utils::IteratorType> parallelIterators(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// The addressing shared by tile.load and tile.store: a rank-reducing
/// subview of the memref clamped to the box mask, and the clamped sizes.
struct ClampedAccess {
  Value subview;
  SmallVector<OpFoldResult> sizes; // one per tile dimension
};

ClampedAccess buildClampedAccess(OpBuilder &b, Location loc, Value memref,
                                 ValueRange indices, ValueRange bounds,
                                 ArrayRef<int64_t> dims,
                                 ArrayRef<int64_t> tileShape) {
  auto memType = cast<MemRefType>(memref.getType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<OpFoldResult> offsets(indices.begin(), indices.end());
  SmallVector<OpFoldResult> sizes(memType.getRank(), b.getIndexAttr(1));
  SmallVector<OpFoldResult> strides(memType.getRank(), b.getIndexAttr(1));
  ClampedAccess access;
  SmallVector<int64_t> reducedShape;
  for (auto [j, d] : llvm::enumerate(dims)) {
    Value bound = bounds.empty()
                      ? memref::DimOp::create(b, loc, memref, d).getResult()
                      : bounds[j];
    // size = clamp(bound - index, 0, tile): the number of in-range rows.
    Value left = arith::SubIOp::create(b, loc, bound, indices[d]);
    Value tile = arith::ConstantIndexOp::create(b, loc, tileShape[j]);
    Value capped = arith::MinSIOp::create(b, loc, left, tile);
    Value size = arith::MaxSIOp::create(b, loc, capped, zero);
    sizes[d] = size;
    access.sizes.push_back(size);
    reducedShape.push_back(ShapedType::kDynamic);
  }
  auto subviewType = memref::SubViewOp::inferRankReducedResultType(
      reducedShape, memType, offsets, sizes, strides);
  access.subview = memref::SubViewOp::create(
      b, loc, cast<MemRefType>(subviewType), memref, offsets, sizes, strides);
  return access;
}

/// tile.load -> subview + to_tensor + tensor.pad to the tile shape.
struct LowerLoad : OpRewritePattern<LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tileType = cast<RankedTensorType>(op.getResult().getType());
    ClampedAccess access =
        buildClampedAccess(rewriter, loc, op.getSource(), op.getIndices(),
                           op.getBounds(), op.getDims(), tileType.getShape());
    auto subviewType = cast<MemRefType>(access.subview.getType());
    auto partType = RankedTensorType::get(subviewType.getShape(),
                                          tileType.getElementType());
    Value part = bufferization::ToTensorOp::create(
        rewriter, loc, partType, access.subview, /*restrict=*/true,
        /*writable=*/false);
    TypedAttr padAttr = op.getPaddingAttr()
                            ? cast<TypedAttr>(op.getPaddingAttr())
                            : rewriter.getZeroAttr(tileType.getElementType());
    Value pad = arith::ConstantOp::create(rewriter, loc, padAttr);
    Value padded = tensor::createPadHighOp(tileType, part, pad,
                                           /*nofold=*/false, loc, rewriter);
    rewriter.replaceOp(op, padded);
    return success();
  }
};

/// tile.store -> extract the in-range part and materialize it into a
/// clamped subview of the destination.
struct LowerStore : OpRewritePattern<StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StoreOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tileType = cast<RankedTensorType>(op.getValue().getType());
    ClampedAccess access =
        buildClampedAccess(rewriter, loc, op.getDest(), op.getIndices(),
                           op.getBounds(), op.getDims(), tileType.getShape());
    int64_t rank = tileType.getRank();
    SmallVector<OpFoldResult> zeros(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(rank, rewriter.getIndexAttr(1));
    Value part = tensor::ExtractSliceOp::create(rewriter, loc, op.getValue(),
                                                zeros, access.sizes, ones);
    bufferization::MaterializeInDestinationOp::create(
        rewriter, loc, TypeRange(), part, access.subview, /*restrict=*/true,
        /*writable=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Dot
//===----------------------------------------------------------------------===//

/// Rounds every element of an f32 tile to tf32 (10 mantissa bits), to
/// nearest with ties away from zero, as cvt.rna.tf32.f32 does.
Value roundToTF32(OpBuilder &b, Location loc, Value tile) {
  auto type = cast<RankedTensorType>(tile.getType());
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  auto generic = linalg::GenericOp::create(
      b, loc, type, ValueRange{tile}, ValueRange{createEmpty(b, loc, type)},
      ArrayRef<AffineMap>{id, id}, parallelIterators(type.getRank()),
      [](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, emitRoundToTF32(nb, nloc, args[0]));
      });
  return generic.getResult(0);
}

/// a - b, elementwise on tiles of the same type.
Value subTiles(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  auto type = cast<RankedTensorType>(lhs.getType());
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  auto generic = linalg::GenericOp::create(
      b, loc, type, ValueRange{lhs, rhs}, ValueRange{createEmpty(b, loc, type)},
      ArrayRef<AffineMap>{id, id, id}, parallelIterators(type.getRank()),
      [](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(
            nb, nloc, arith::SubFOp::create(nb, nloc, args[0], args[1]).getResult());
      });
  return generic.getResult(0);
}

/// Which operands of a matmul arrive transposed: the matrix given is the
/// transpose of the operand, read through a transposed indexing map.
struct Transposed {
  bool a = false, b = false;
};

/// A linalg.matmul; `tf32Operands` marks it (attribute `tile.tf32`) as
/// having operands already rounded to tf32, which the GPU path may run on
/// tensor cores with no further loss.
Value matmul(OpBuilder &b, Location loc, Value a, Value bm, Value acc,
             Transposed transposed, bool tf32Operands = false) {
  auto mm = linalg::MatmulOp::create(b, loc, acc.getType(), ValueRange{a, bm},
                                     ValueRange{acc});
  if (transposed.a || transposed.b) {
    MLIRContext *ctx = b.getContext();
    AffineExpr m, n, k;
    bindDims(ctx, m, n, k);
    auto map = [&](AffineExpr x, AffineExpr y) {
      return AffineMap::get(3, 0, {x, y}, ctx);
    };
    mm.setIndexingMapsAttr(b.getAffineMapArrayAttr(
        {transposed.a ? map(k, m) : map(m, k),
         transposed.b ? map(n, k) : map(k, n), map(m, n)}));
  }
  if (tf32Operands)
    mm->setAttr(kda::tile::TileDialect::getTF32AttrName(), b.getUnitAttr());
  return mm.getResult(0);
}

/// The matrix that `operand` transposes, if it is a 2-D tile.trans (or its
/// linalg.transpose): a dot reads it through a transposed map instead of
/// materializing the transpose.
Value transposeSource(Value operand) {
  if (auto trans = operand.getDefiningOp<TransOp>()) {
    auto perm = trans.getPermutation();
    if (cast<RankedTensorType>(trans.getType()).getRank() == 2 &&
        (!perm || ArrayRef<int64_t>(*perm) == ArrayRef<int64_t>{1, 0}))
      return trans.getInput();
  }
  if (auto trans = operand.getDefiningOp<linalg::TransposeOp>())
    if (trans.getPermutation() == ArrayRef<int64_t>{1, 0} &&
        trans.hasPureTensorSemantics())
      return trans.getInput();
  return Value();
}

/// tile.dot -> linalg.matmul, with tf32 operand rounding where asked.
struct LowerDot : OpRewritePattern<DotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DotOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value a = op.getA(), b = op.getB(), acc = op.getAcc();
    bool isF32 = cast<RankedTensorType>(a.getType()).getElementType().isF32();
    Precision precision = isF32 ? op.getPrecision() : Precision::ieee;
    // A transposed operand is read in place (no transposed copy).
    Transposed t;
    if (Value source = transposeSource(a)) {
      a = source;
      t.a = true;
    }
    if (Value source = transposeSource(b)) {
      b = source;
      t.b = true;
    }
    Value result;
    switch (precision) {
    case Precision::ieee:
      result = matmul(rewriter, loc, a, b, acc, t);
      break;
    case Precision::tf32: {
      Value aRounded = roundToTF32(rewriter, loc, a);
      Value bRounded = roundToTF32(rewriter, loc, b);
      result = matmul(rewriter, loc, aRounded, bRounded, acc, t,
                      /*tf32Operands=*/true);
      break;
    }
    case Precision::tf32x3: {
      Value aHi = roundToTF32(rewriter, loc, a);
      Value bHi = roundToTF32(rewriter, loc, b);
      Value aLo = roundToTF32(rewriter, loc, subTiles(rewriter, loc, a, aHi));
      Value bLo = roundToTF32(rewriter, loc, subTiles(rewriter, loc, b, bHi));
      // Small terms first: acc + lo*hi + hi*lo + hi*hi.
      result = matmul(rewriter, loc, aLo, bHi, acc, t, true);
      result = matmul(rewriter, loc, aHi, bLo, result, t, true);
      result = matmul(rewriter, loc, aHi, bHi, result, t, true);
      break;
    }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reductions and scans
//===----------------------------------------------------------------------===//

struct LowerReduce : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    Type elementType = resultType.getElementType();
    Value identity = arith::ConstantOp::create(
        rewriter, loc, getCombineIdentity(rewriter, op.getKind(), elementType));
    Value init = createFilled(rewriter, loc, resultType, identity);
    CombineKind kind = op.getKind();
    // A generic rather than linalg.reduce, so that elementwise producers of
    // the input fuse into it (each input element is read once).
    int64_t rank = cast<RankedTensorType>(op.getInput().getType()).getRank();
    int64_t dim = op.getDim();
    SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
    iterators[dim] = utils::IteratorType::reduction;
    AffineMap inputMap = rewriter.getMultiDimIdentityMap(rank);
    auto reduce = linalg::GenericOp::create(
        rewriter, loc, resultType, ValueRange{op.getInput()}, ValueRange{init},
        ArrayRef<AffineMap>{inputMap, inputMap.dropResults(ArrayRef<int64_t>{dim})}, iterators, [kind](OpBuilder &nb, Location nloc, ValueRange args) {
          linalg::YieldOp::create(nb, nloc,
                                  emitCombine(nb, nloc, kind, args[1], args[0]));
        });
    rewriter.replaceOp(op, reduce.getResult(0));
    return success();
  }
};

/// tile.scan -> a linalg.generic over (result dims..., j) in which element i
/// along `dim` combines the inputs j <= i (j >= i when reversed), in order.
struct LowerScan : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = type.getRank(), dim = op.getDim();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> inputExprs, outputExprs;
    for (int64_t i = 0; i < rank; ++i) {
      outputExprs.push_back(getAffineDimExpr(i, ctx));
      inputExprs.push_back(getAffineDimExpr(i == dim ? rank : i, ctx));
    }
    auto inputMap = AffineMap::get(rank + 1, 0, inputExprs, ctx);
    auto outputMap = AffineMap::get(rank + 1, 0, outputExprs, ctx);
    SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
    iterators.push_back(utils::IteratorType::reduction);

    CombineKind kind = op.getKind();
    TypedAttr identityAttr =
        getCombineIdentity(rewriter, kind, type.getElementType());
    Value identity = arith::ConstantOp::create(rewriter, loc, identityAttr);
    Value init = createFilled(rewriter, loc, type, identity);
    bool reverse = op.getReverse();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{op.getInput()}, ValueRange{init},
        ArrayRef<AffineMap>{inputMap, outputMap}, iterators,
        [&](OpBuilder &nb, Location nloc, ValueRange args) {
          Value i = linalg::IndexOp::create(nb, nloc, dim);
          Value j = linalg::IndexOp::create(nb, nloc, rank);
          Value inside = arith::CmpIOp::create(
              nb, nloc,
              reverse ? arith::CmpIPredicate::uge : arith::CmpIPredicate::ule,
              j, i);
          Value neutral = arith::ConstantOp::create(nb, nloc, identityAttr);
          Value term =
              arith::SelectOp::create(nb, nloc, inside, args[0], neutral);
          linalg::YieldOp::create(nb, nloc,
                                  emitCombine(nb, nloc, kind, args[1], term));
        });
    generic->setAttr(TileDialect::getScanAttrName(),
                     rewriter.getDictionaryAttr({
                         rewriter.getNamedAttr("dim", op.getDimAttr()),
                         rewriter.getNamedAttr("kind", op.getKindAttr()),
                         rewriter.getNamedAttr("reverse",
                                               rewriter.getBoolAttr(reverse)),
                     }));
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Data movement and index tiles
//===----------------------------------------------------------------------===//

struct LowerTrans : OpRewritePattern<TransOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getResult().getType());
    Value init = createEmpty(rewriter, op.getLoc(), type);
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), op.getInput(), init, getTransPermutation(op));
    rewriter.replaceOp(op, transpose.getResult()[0]);
    return success();
  }
};

struct LowerBroadcast : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    // A generic rather than linalg.broadcast, so that elementwise fusion
    // folds the broadcast into its consumers (no broadcast tile is stored).
    auto type = cast<RankedTensorType>(op.getResult().getType());
    int64_t rank = type.getRank();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), type, ValueRange{op.getInput()},
        ValueRange{createEmpty(rewriter, op.getLoc(), type)},
        ArrayRef<AffineMap>{identity.dropResults(op.getDims()), identity},
        parallelIterators(rank),
        [](OpBuilder &nb, Location nloc, ValueRange args) {
          linalg::YieldOp::create(nb, nloc, args[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct LowerSplat : OpRewritePattern<SplatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SplatOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, createFilled(rewriter, op.getLoc(),
                         cast<RankedTensorType>(op.getResult().getType()),
                         op.getValue()));
    return success();
  }
};

/// A generic with no inputs whose body computes each element from its
/// indices.
Value buildIndexGeneric(
    OpBuilder &b, Location loc, RankedTensorType type,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> body) {
  int64_t rank = type.getRank();
  AffineMap id = b.getMultiDimIdentityMap(rank);
  auto generic = linalg::GenericOp::create(
      b, loc, type, ValueRange{}, ValueRange{createEmpty(b, loc, type)},
      ArrayRef<AffineMap>{id}, parallelIterators(rank),
      [&](OpBuilder &nb, Location nloc, ValueRange) {
        SmallVector<Value> idx;
        for (int64_t i = 0; i < rank; ++i)
          idx.push_back(linalg::IndexOp::create(nb, nloc, i));
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, idx));
      });
  return generic.getResult(0);
}

struct LowerIota : OpRewritePattern<IotaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IotaOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getResult().getType());
    int64_t dim = op.getDim();
    Value result = buildIndexGeneric(
        rewriter, op.getLoc(), type,
        [&](OpBuilder &nb, Location nloc, ArrayRef<Value> idx) -> Value {
          if (type.getElementType().isIndex())
            return idx[dim];
          return arith::IndexCastOp::create(nb, nloc, type.getElementType(),
                                            idx[dim]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerTriMask : OpRewritePattern<TriMaskOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TriMaskOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getResult().getType());
    int64_t diagonal = op.getDiagonal();
    bool upper = op.getUpper();
    Value result = buildIndexGeneric(
        rewriter, op.getLoc(), type,
        [&](OpBuilder &nb, Location nloc, ArrayRef<Value> idx) -> Value {
          // lower: j - i <= diagonal; upper: j - i >= diagonal.
          Value diff = arith::SubIOp::create(nb, nloc, idx[1], idx[0]);
          Value diag = arith::ConstantIndexOp::create(nb, nloc, diagonal);
          return arith::CmpIOp::create(nb, nloc,
                                       upper ? arith::CmpIPredicate::sge
                                             : arith::CmpIPredicate::sle,
                                       diff, diag);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Splat tensor constants inside kernels become fills, so that no global
/// constant buffers are needed on the device.
struct SplatConstantToFill : OpRewritePattern<arith::ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto dense = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!type || !dense || !isInsideKernel(op))
      return failure();
    Value scalar = arith::ConstantOp::create(
        rewriter, op.getLoc(), dense.getSplatValue<TypedAttr>());
    rewriter.replaceOp(op, createFilled(rewriter, op.getLoc(), type, scalar));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Varlen
//===----------------------------------------------------------------------===//

/// Loads cu_seqlens[i] as an index.
Value loadOffset(OpBuilder &b, Location loc, Value cu, Value i) {
  Value v = memref::LoadOp::create(b, loc, cu, ValueRange{i});
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

/// tile.chunk_start -> its row (the mark has served its passes).
struct LowerChunkStart : OpRewritePattern<ChunkStartOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ChunkStartOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, op.getRow());
    return success();
  }
};

/// tile.varlen_chunk -> binary search for the largest n with
/// floor(cu[n] / BT) + n <= program.
struct LowerVarlenChunk : OpRewritePattern<VarlenChunkOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VarlenChunkOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value cu = op.getCuSeqlens(), program = op.getProgram();
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value c2 = arith::ConstantIndexOp::create(rewriter, loc, 2);
    Value bt = arith::ConstantIndexOp::create(rewriter, loc, op.getChunkSize());
    Value size = memref::DimOp::create(rewriter, loc, cu, 0);
    // N = size - 1 sequences; an empty or single-entry cu_seqlens has none.
    Value numSeq = arith::MaxSIOp::create(
        rewriter, loc, arith::SubIOp::create(rewriter, loc, size, c1), c0);
    Type indexType = rewriter.getIndexType();
    auto start = [&](OpBuilder &b, Location l, Value n) -> Value {
      Value off = loadOffset(b, l, cu, n);
      return arith::AddIOp::create(b, l, arith::DivUIOp::create(b, l, off, bt),
                                   n);
    };
    // Invariant: start(lo) <= program < start(hi), with start(N) = +inf.
    auto loop = scf::WhileOp::create(
        rewriter, loc, TypeRange{indexType, indexType}, ValueRange{c0, numSeq},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value width = arith::SubIOp::create(b, l, args[1], args[0]);
          Value more = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt,
                                             width, c1);
          scf::ConditionOp::create(b, l, more, args);
        },
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value mid = arith::DivUIOp::create(
              b, l, arith::AddIOp::create(b, l, args[0], args[1]), c2);
          Value le = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle,
                                           start(b, l, mid), program);
          Value lo = arith::SelectOp::create(b, l, le, mid, args[0]);
          Value hi = arith::SelectOp::create(b, l, le, args[1], mid);
          scf::YieldOp::create(b, l, ValueRange{lo, hi});
        });
    Value seq = loop.getResult(0);
    // Clamp the reads so that a malformed cu_seqlens cannot read past it.
    Value last = arith::MaxSIOp::create(
        rewriter, loc, arith::SubIOp::create(rewriter, loc, size, c1), c0);
    Value next = arith::MinSIOp::create(
        rewriter, loc, arith::AddIOp::create(rewriter, loc, seq, c1), last);
    Value bos = loadOffset(rewriter, loc, cu, seq);
    Value eos = loadOffset(rewriter, loc, cu, next);
    Value length = arith::MaxSIOp::create(
        rewriter, loc, arith::SubIOp::create(rewriter, loc, eos, bos), c0);
    Value chunk = arith::SubIOp::create(rewriter, loc, program,
                                        start(rewriter, loc, seq));
    Value rowStart = arith::MulIOp::create(rewriter, loc, chunk, bt);
    Value hasSeq = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::sgt, numSeq, c0);
    Value inRange = arith::CmpIOp::create(rewriter, loc,
                                          arith::CmpIPredicate::slt, rowStart,
                                          length);
    Value nonNegative = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::sge, chunk, c0);
    Value valid = arith::AndIOp::create(
        rewriter, loc, hasSeq,
        arith::AndIOp::create(rewriter, loc, inRange, nonNegative));
    rewriter.replaceOp(op, ValueRange{seq, chunk, bos, length, valid});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

/// Lowers the tile ops of `kernel` to linalg (`lowering`), fuses its
/// elementwise producers into their consumers (`fusion`) and its sibling
/// reductions; fails, with a diagnostic, where a tile op is left.
static LogicalResult lowerKernel(func::FuncOp kernel,
                                 const FrozenRewritePatternSet &lowering,
                                 const FrozenRewritePatternSet &fusion) {
  if (failed(applyPatternsGreedily(kernel, lowering)))
    return kernel.emitError("tile-to-linalg lowering did not converge");
  if (failed(applyPatternsGreedily(kernel, fusion)))
    return kernel.emitError("elementwise fusion did not converge");
  kda::fuseSiblingReductions(kernel);
  // Every tile op but program ids and triangular inverses (already in
  // destination style; the grid passes lower them) must be gone.
  WalkResult left = kernel.walk([&](Operation *op) {
    if (isa<TileDialect>(op->getDialect()) &&
        !isa<ProgramIdOp, NumProgramsOp, UnitLowerInverseOp>(op)) {
      op->emitOpError("could not be lowered to linalg");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(left.wasInterrupted());
}

/// True if `op` is a linalg op whose body calls a math-dialect function.
static bool computesMath(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp)
    return false;
  WalkResult found = linalgOp->walk([](Operation *inner) {
    return isa<math::MathDialect>(inner->getDialect()) ? WalkResult::interrupt()
                                                        : WalkResult::advance();
  });
  return found.wasInterrupted();
}

struct ConvertTileToLinalgPass
    : public kda::impl::ConvertTileToLinalgPassBase<ConvertTileToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<LowerLoad, LowerStore, LowerDot, LowerReduce, LowerScan,
                 LowerTrans, LowerBroadcast, LowerSplat, LowerIota,
                 LowerTriMask, SplatConstantToFill, LowerVarlenChunk,
                 LowerChunkStart>(ctx);
    linalg::populateElementwiseToLinalgConversionPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));

    // Then fuse elementwise producers (including fills and broadcasts) into
    // their consumers, so that chains of tile math become one loop nest
    // with no tile stored in between. A producer fuses into a reduction only
    // through an operand that the reduction reads once per element (its map
    // is a permutation of the reduction's loops): a scan, which reads
    // each input element once per output row, would otherwise evaluate the
    // input's exp/log once per row. For the same reason a producer that
    // computes math-dialect functions (exp2, log, ...) does not fuse into a
    // broadcast of its result (2^g of a [64] row, broadcast to [64, 32],
    // stays 64 exp2, not 2048). Transposes become permuted maps of their
    // consumers.
    RewritePatternSet fusion(ctx);
    linalg::populateElementwiseOpsFusionPatterns(
        fusion, [](OpOperand *operand) {
          auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
          if (!consumer)
            return false;
          bool readOnce =
              consumer.getMatchingIndexingMap(operand).isPermutation();
          if (consumer.getNumReductionLoops() != 0)
            return readOnce;
          // A broadcast would evaluate the producer's math once per copy.
          return readOnce || !computesMath(operand->get().getDefiningOp());
        });
    kda::populateFoldTransposeIntoGenericPatterns(fusion);
    FrozenRewritePatternSet frozenFusion(std::move(fusion));

    SmallVector<func::FuncOp> kernels;
    getOperation().walk([&](func::FuncOp func) {
      if (func->hasAttr(TileDialect::getKernelAttrName()))
        kernels.push_back(func);
    });
    // Each kernel is a function of its own (isolated from the others), so
    // they are lowered side by side; diagnostics come in kernel order.
    ParallelDiagnosticHandler diagnostics(&getContext());
    LogicalResult lowered = failableParallelForEach(
        &getContext(), llvm::seq<size_t>(0, kernels.size()), [&](size_t i) {
          diagnostics.setOrderIDForThread(i);
          LogicalResult result = lowerKernel(kernels[i], frozen, frozenFusion);
          diagnostics.eraseOrderIDForThread();
          return result;
        });
    if (failed(lowered))
      return signalPassFailure();
  }
};

} // namespace
