//===- SIMTRegisters.cpp - layout changes and reductions of register tiles ===//
//
// tile.convert_layout, tile.trans and tile.broadcast are register renames
// when every thread already holds the elements its result needs (checked
// at compile time over all threads); a 16-bit convert_layout that, within
// each warp, transposes 8x8 matrices (an accumulator becoming a B operand)
// is one movmatrix per register pair; one that keeps every element in its
// warp is shfl.sync.idx per register and source register; the others are
// conversions through shared memory (convert_layout and trans) or errors
// (broadcast, whose input must be a slice of its result's layout). tile.reduce combines in registers,
// then across lanes by xor shuffles, then across warps through a small
// shared buffer.
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "kda/Dialect/Tile/TileOps.h"
#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::kda;
using namespace mlir::kda::simt;

namespace {

/// The registers of `registers` listed in `order`, as a register vector of
/// `type`.
Value gatherRegisters(OpBuilder &b, Location loc, Value registers,
                      ArrayRef<int64_t> order, VectorType type) {
  SmallVector<Value> values;
  for (int64_t r : order)
    values.push_back(extractRegister(b, loc, registers, r));
  return buildRegisters(b, loc, type, values);
}

/// Registers `lo` and `hi` (16-bit) of `registers` as one i32, `lo` in
/// the low half.
Value packPair(OpBuilder &b, Location loc, Value registers, int64_t lo,
               int64_t hi) {
  Type element = cast<VectorType>(registers.getType()).getElementType();
  Value pair = vector::FromElementsOp::create(
      b, loc, VectorType::get({2}, element),
      ValueRange{extractRegister(b, loc, registers, lo),
                 extractRegister(b, loc, registers, hi)});
  return vector::ExtractOp::create(
      b, loc,
      vector::BitCastOp::create(
          b, loc, VectorType::get({1}, b.getI32Type()), pair),
      ArrayRef<int64_t>{0});
}

/// The two 16-bit `element` values of the i32 `word`, low half first,
/// appended to `values`.
void unpackPair(OpBuilder &b, Location loc, Value word, Type element,
                SmallVectorImpl<Value> &values) {
  Value pair = vector::BitCastOp::create(
      b, loc, VectorType::get({2}, element),
      vector::BroadcastOp::create(
          b, loc, VectorType::get({1}, b.getI32Type()), word));
  values.push_back(extractRegister(b, loc, pair, 0));
  values.push_back(extractRegister(b, loc, pair, 1));
}

/// The registers of `type` made by one movmatrix.m8n8.trans per register
/// pair of `registers` that matchWarpTransposes found: each pair goes in
/// as one b32, and the b32 that comes out holds two result registers.
Value transposeInWarp(OpBuilder &b, Location loc, Value registers,
                      ArrayRef<std::array<int64_t, 2>> pairs, VectorType type) {
  Type i32 = b.getI32Type();
  SmallVector<Value> values;
  for (auto [lo, hi] : pairs) {
    Value word = packPair(b, loc, registers, lo, hi);
    Value moved =
        LLVM::InlineAsmOp::create(
            b, loc, i32, ValueRange{word},
            "movmatrix.sync.aligned.m8n8.trans.b16 $0, $1;", "=r,r",
            /*has_side_effects=*/false, /*is_align_stack=*/false,
            LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
            ArrayAttr())
            .getResult(0);
    unpackPair(b, loc, moved, type.getElementType(), values);
  }
  return buildRegisters(b, loc, type, values);
}

/// True when 16-bit result registers `lo` and `hi` (consecutive) can
/// travel as one 32-bit word: the same source lanes and selects, and each
/// candidate's source registers consecutive too, in every warp.
bool travelTogether(const ShuffledRegister &lo, const ShuffledRegister &hi) {
  if (lo.laneBase != hi.laneBase || lo.laneFlips != hi.laneFlips ||
      lo.selectMasks != hi.selectMasks ||
      lo.sources.size() != hi.sources.size())
    return false;
  for (auto [low, high] : llvm::zip(lo.sources, hi.sources)) {
    if (low.size() != high.size())
      return false;
    for (auto [l, h] : llvm::zip(low, high))
      if (h != l + 1)
        return false;
  }
  return true;
}

/// The registers of `type` gathered within each warp by shfl.sync.idx as
/// matchWarpShuffles planned them: per register, one shuffle of each
/// candidate source register (picked by warp where it differs between
/// warps) from the planned lane, and selects by lane between them. Two
/// 16-bit registers that travelTogether share their shuffles (their source
/// registers packed into one 32-bit word); a 16-bit register alone travels
/// zero-extended.
Value shuffleInWarp(OpBuilder &b, Location loc, Value registers,
                    ArrayRef<ShuffledRegister> plan, VectorType type) {
  Type element = type.getElementType();
  const unsigned width = element.getIntOrFloatBitWidth();
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
  };
  ThreadPosition thread = getThreadPosition(b, loc);
  Value lane = arith::IndexCastOp::create(b, loc, i32, thread.lane);
  // Source registers [r, r + count) of a warp as one 32-bit word.
  auto word = [&](int64_t r, int64_t count) -> Value {
    if (count == 2)
      return packPair(b, loc, registers, r, r + 1);
    Value v = extractRegister(b, loc, registers, r);
    if (width == 32)
      return v;
    Value bits = arith::BitcastOp::create(b, loc, b.getIntegerType(width), v);
    return arith::ExtUIOp::create(b, loc, i32, bits);
  };
  // The word of source registers [perWarp[warp], + count) of this thread's
  // warp (warp-uniform).
  auto sourceWord = [&](ArrayRef<int64_t> perWarp, int64_t count) {
    Value value = word(perWarp[0], count);
    for (int64_t warp = 1; warp < static_cast<int64_t>(perWarp.size());
         ++warp) {
      if (perWarp[warp] == perWarp[0])
        continue;
      Value inWarp = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, thread.warp,
          arith::ConstantIndexOp::create(b, loc, warp));
      value = arith::SelectOp::create(b, loc, inWarp,
                                      word(perWarp[warp], count), value);
    }
    return value;
  };
  std::array<Value, 5> laneBitSet;
  for (int64_t bit = 0; bit < 5; ++bit)
    laneBitSet[bit] = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(b, loc, lane, cst(int64_t(1) << bit)), cst(0));
  SmallVector<Value> values;
  for (size_t r = 0; r < plan.size();) {
    const ShuffledRegister &reg = plan[r];
    const int64_t count =
        width == 16 && r + 1 < plan.size() && travelTogether(reg, plan[r + 1])
            ? 2
            : 1;
    Value linear = cst(0);
    for (int64_t bit = 0; bit < 5; ++bit)
      if (reg.laneFlips[bit])
        linear = arith::XOrIOp::create(
            b, loc, linear,
            arith::SelectOp::create(b, loc, laneBitSet[bit],
                                    cst(reg.laneFlips[bit]), cst(0)));
    Value from = arith::XOrIOp::create(b, loc, linear, cst(reg.laneBase));
    Value result;
    for (auto [k, source] : llvm::enumerate(reg.sources)) {
      Value moved =
          gpu::ShuffleOp::create(b, loc, sourceWord(source, count), from,
                                 cst(DistLayoutAttr::kWarpSize),
                                 gpu::ShuffleMode::IDX)
              .getShuffleResult();
      if (k == 0) {
        result = moved;
        continue;
      }
      Value mask = cst(static_cast<int64_t>(reg.selectMasks[k - 1]));
      Value takes = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne,
          arith::AndIOp::create(b, loc,
                                arith::ShRUIOp::create(b, loc, mask, lane),
                                cst(1)),
          cst(0));
      result = arith::SelectOp::create(b, loc, takes, moved, result);
    }
    if (count == 2) {
      unpackPair(b, loc, result, element, values);
    } else if (width == 32) {
      values.push_back(result);
    } else {
      Value bits =
          arith::TruncIOp::create(b, loc, b.getIntegerType(width), result);
      values.push_back(arith::BitcastOp::create(b, loc, element, bits));
    }
    r += count;
  }
  return buildRegisters(b, loc, type, values);
}

/// The result of a layout change from `srcType` to `dstType` (`dstToSrc`
/// as in matchRegisters) gathered by shuffleInWarp, or failure when its
/// elements are not 16 or 32 bits or cross warps (matchWarpShuffles).
FailureOr<Value> shuffleLayoutChange(OpBuilder &b, Location loc,
                                     Value registers, RankedTensorType srcType,
                                     RankedTensorType dstType, int64_t numWarps,
                                     CoordinateMap dstToSrc) {
  unsigned width = srcType.getElementType().getIntOrFloatBitWidth();
  if (width != 16 && width != 32)
    return failure();
  FailureOr<SmallVector<ShuffledRegister>> plan = matchWarpShuffles(
      getLayout(srcType), getLayout(dstType), numWarps, dstToSrc);
  if (failed(plan))
    return failure();
  return shuffleInWarp(b, loc, registers, *plan, getRegisterType(dstType));
}

/// True for 16-bit element types (what movmatrix moves).
bool isSixteenBit(RankedTensorType type) {
  return type.getElementType().getIntOrFloatBitWidth() == 16;
}

SmallVector<int64_t> identityCoordinates(ArrayRef<int64_t> c) {
  return SmallVector<int64_t>(c);
}

struct ConvertLayoutInRegisters : OpConversionPattern<tile::ConvertLayoutOp> {
  ConvertLayoutInRegisters(const TypeConverter &converter, MLIRContext *ctx,
                           bool warpShuffles)
      : OpConversionPattern(converter, ctx), warpShuffles(warpShuffles) {}
  LogicalResult
  matchAndRewrite(tile::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getInput().getType());
    auto dstType = cast<RankedTensorType>(op.getResult().getType());
    int64_t numWarps = getProgramWarps(op);
    Location loc = op.getLoc();
    FailureOr<SmallVector<int64_t>> order =
        matchRegisters(getLayout(srcType), getLayout(dstType), numWarps,
                       identityCoordinates);
    if (succeeded(order)) {
      rewriter.replaceOp(op, gatherRegisters(rewriter, loc, adaptor.getInput(),
                                             *order,
                                             getRegisterType(dstType)));
      return success();
    }
    if (isSixteenBit(srcType)) {
      FailureOr<SmallVector<std::array<int64_t, 2>>> pairs =
          matchWarpTransposes(getLayout(srcType), getLayout(dstType), numWarps,
                              identityCoordinates);
      if (succeeded(pairs)) {
        rewriter.replaceOp(op, transposeInWarp(rewriter, loc,
                                               adaptor.getInput(), *pairs,
                                               getRegisterType(dstType)));
        return success();
      }
    }
    if (warpShuffles) {
      FailureOr<Value> shuffled =
          shuffleLayoutChange(rewriter, loc, adaptor.getInput(), srcType,
                              dstType, numWarps, identityCoordinates);
      if (succeeded(shuffled)) {
        rewriter.replaceOp(op, *shuffled);
        return success();
      }
    }
    rewriter.replaceOp(op, convertThroughSharedMemory(rewriter, loc,
                                                      adaptor.getInput(),
                                                      srcType, dstType,
                                                      numWarps));
    return success();
  }

private:
  bool warpShuffles;
};

struct TransInRegisters : OpConversionPattern<tile::TransOp> {
  TransInRegisters(const TypeConverter &converter, MLIRContext *ctx,
                   bool warpShuffles)
      : OpConversionPattern(converter, ctx), warpShuffles(warpShuffles) {}
  LogicalResult
  matchAndRewrite(tile::TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getInput().getType());
    auto dstType = cast<RankedTensorType>(op.getResult().getType());
    if (!getLayout(srcType) || !getLayout(dstType))
      return failure();
    // Result dimension i is input dimension perm[i].
    SmallVector<int64_t> perm = tile::getTransPermutation(op);
    int64_t numWarps = getProgramWarps(op);
    Location loc = op.getLoc();
    auto dstToSrc = [&](ArrayRef<int64_t> c) {
      SmallVector<int64_t> src(c.size());
      for (auto [i, p] : llvm::enumerate(perm))
        src[p] = c[i];
      return src;
    };
    FailureOr<SmallVector<int64_t>> order = matchRegisters(
        getLayout(srcType), getLayout(dstType), numWarps, dstToSrc);
    if (succeeded(order)) {
      rewriter.replaceOp(op, gatherRegisters(rewriter, loc, adaptor.getInput(),
                                             *order,
                                             getRegisterType(dstType)));
      return success();
    }
    if (warpShuffles) {
      FailureOr<Value> shuffled =
          shuffleLayoutChange(rewriter, loc, adaptor.getInput(), srcType,
                              dstType, numWarps, dstToSrc);
      if (succeeded(shuffled)) {
        rewriter.replaceOp(op, *shuffled);
        return success();
      }
    }
    rewriter.replaceOp(op, convertThroughSharedMemory(
                               rewriter, loc, adaptor.getInput(), srcType,
                               dstType, numWarps, perm));
    return success();
  }

private:
  bool warpShuffles;
};

/// For each result register of a broadcast, the input register it repeats.
FailureOr<SmallVector<int64_t>> broadcastRegisters(tile::BroadcastOp op) {
  ArrayRef<int64_t> dims = op.getDims();
  return matchRegisters(getLayout(op.getInput().getType()),
                        getLayout(op.getResult().getType()),
                        getProgramWarps(op), [&](ArrayRef<int64_t> c) {
                          SmallVector<int64_t> src;
                          for (auto [i, v] : llvm::enumerate(c))
                            if (!llvm::is_contained(dims,
                                                    static_cast<int64_t>(i)))
                              src.push_back(v);
                          return src;
                        });
}

struct BroadcastInRegisters : OpConversionPattern<tile::BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getInput().getType());
    auto dstType = cast<RankedTensorType>(op.getResult().getType());
    if (!getLayout(srcType) || !getLayout(dstType))
      return failure();
    FailureOr<SmallVector<int64_t>> order = broadcastRegisters(op);
    if (failed(order))
      return failure();
    rewriter.replaceOp(op, gatherRegisters(rewriter, loc(op), adaptor.getInput(),
                                           *order, getRegisterType(dstType)));
    return success();
  }
  static Location loc(Operation *op) { return op->getLoc(); }
};

/// The part of a reduction's checks that the lowering relies on.
LogicalResult checkReduce(tile::ReduceOp op) {
  auto srcType = cast<RankedTensorType>(op.getInput().getType());
  if (srcType.getRank() < 2)
    return op.emitOpError()
           << "on register tiles reduces tiles of rank 2 or more";
  Type element = srcType.getElementType();
  if (element.getIntOrFloatBitWidth() != 32)
    return op.emitOpError()
           << "on register tiles reduces 32-bit elements (warp shuffles), got "
           << element;
  return success();
}

struct ReduceInRegisters : OpConversionPattern<tile::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getInput().getType());
    auto dstType = cast<RankedTensorType>(op.getResult().getType());
    DistLayoutAttr src = getLayout(srcType), dst = getLayout(dstType);
    if (!src || !dst)
      return failure();
    if (failed(checkReduce(op)))
      return failure();
    Type element = srcType.getElementType();
    const int64_t dim = op.getDim();
    const int64_t numWarps = getProgramWarps(op);
    Location loc = op.getLoc();
    tile::CombineKind kind = op.getKind();
    auto combine = [&](Value lhs, Value rhs) {
      return tile::emitCombine(rewriter, loc, kind, lhs, rhs);
    };

    // 1. In registers: the registers that differ only along `dim`, in
    // order, are one partial per register of the slice layout.
    DistLayoutAttr slice = src.getSlice(dim);
    SmallVector<Value> partials(slice.getNumRegisters());
    for (int64_t r = 0; r < src.getNumRegisters(); ++r) {
      SmallVector<int64_t> offsets = src.getRegisterOffsets(r);
      offsets.erase(offsets.begin() + dim);
      int64_t group = -1;
      for (int64_t s = 0; s < slice.getNumRegisters() && group < 0; ++s)
        if (slice.getRegisterOffsets(s) == offsets)
          group = s;
      assert(group >= 0 && "every register belongs to a slice register");
      Value v = extractRegister(rewriter, loc, adaptor.getInput(), r);
      partials[group] = partials[group] ? combine(partials[group], v) : v;
    }

    // 2. Across the lanes along `dim`: an xor butterfly, after which every
    // lane holds the combination.
    auto i32 = [&](int64_t v) {
      return arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                          v);
    };
    const int64_t lanes = src.getLanes()[dim];
    for (Value &partial : partials)
      for (int64_t step = 1; step < lanes; step *= 2) {
        auto shuffle = gpu::ShuffleOp::create(
            rewriter, loc, partial, i32(step * src.getLaneStrides()[dim]),
            i32(DistLayoutAttr::kWarpSize), gpu::ShuffleMode::XOR);
        partial = combine(partial, shuffle.getShuffleResult());
      }

    // 3. Across the warps along `dim`: each warp's partials go to a shared
    // buffer [warps along dim, result tile], then every thread combines the
    // column of its elements in warp order.
    const int64_t warps = src.getWarps()[dim];
    if (warps > 1) {
      WarpExchange exchange =
          exchangeAcrossWarps(rewriter, loc, src, dim, partials,
                              getThreadPosition(rewriter, loc), numWarps);
      for (auto [reg, partial] : llvm::enumerate(partials)) {
        Value total;
        for (int64_t w = 0; w < warps; ++w) {
          Value v = exchange.load(rewriter, loc, w, reg);
          total = total ? combine(total, v) : v;
        }
        partial = total;
      }
    }

    Value reduced = buildRegisters(rewriter, loc,
                                   VectorType::get({slice.getNumRegisters()},
                                                   element),
                                   partials);
    auto sliceType =
        RankedTensorType::get(dstType.getShape(), element, slice);
    FailureOr<SmallVector<int64_t>> order =
        matchRegisters(slice, dst, numWarps, identityCoordinates);
    if (succeeded(order))
      reduced = gatherRegisters(rewriter, loc, reduced, *order,
                                getRegisterType(dstType));
    else
      reduced = convertThroughSharedMemory(rewriter, loc, reduced, sliceType,
                                           dstType, numWarps);
    rewriter.replaceOp(op, reduced);
    return success();
  }
};

} // namespace

Value WarpExchange::load(OpBuilder &b, Location loc, int64_t warp,
                        int64_t reg) const {
  SmallVector<Value> idx{arith::ConstantIndexOp::create(b, loc, warp)};
  for (auto [v, o] : llvm::zip(base, slice.getRegisterOffsets(reg)))
    idx.push_back(
        o ? arith::AddIOp::create(b, loc, v,
                                  arith::ConstantIndexOp::create(b, loc, o))
                .getResult()
          : v);
  return memref::LoadOp::create(b, loc, buffer, idx);
}

WarpExchange simt::exchangeAcrossWarps(OpBuilder &b, Location loc,
                                       DistLayoutAttr layout, int64_t dim,
                                       ArrayRef<Value> values,
                                       ThreadPosition thread,
                                       int64_t numWarps) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto coordinate = [&](Value id, int64_t stride, int64_t count) {
    return arith::RemUIOp::create(
               b, loc, arith::DivUIOp::create(b, loc, id, cst(stride)),
               cst(count))
        .getResult();
  };
  WarpExchange exchange;
  exchange.slice = layout.getSlice(dim);
  const int64_t warps = layout.getWarps()[dim];
  SmallVector<int64_t> shape{warps};
  llvm::append_range(shape, exchange.slice.getTileShape());
  auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                          gpu::AddressSpace::Workgroup);
  Type element = values.front().getType();
  exchange.buffer = memref::AllocOp::create(
      b, loc,
      MemRefType::get(shape, element, MemRefLayoutAttrInterface(), space));
  exchange.base = getThreadOffsets(b, loc, exchange.slice, thread);
  exchange.warpAlong =
      coordinate(thread.warp, layout.getWarpStrides()[dim], warps);
  // One writer per element and warp along `dim`: lane 0 along `dim`, and
  // no replica of the input.
  Value laneAlong = coordinate(thread.lane, layout.getLaneStrides()[dim],
                               layout.getLanes()[dim]);
  Value writer = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, laneAlong,
                            cst(0)),
      isCopyOwner(b, loc, layout, thread, numWarps));
  gpu::BarrierOp::create(b, loc);
  scf::IfOp::create(b, loc, writer, [&](OpBuilder &nested, Location l) {
    for (auto [reg, value] : llvm::enumerate(values)) {
      SmallVector<Value> idx{exchange.warpAlong};
      for (auto [v, o] :
           llvm::zip(exchange.base, exchange.slice.getRegisterOffsets(reg)))
        idx.push_back(o ? arith::AddIOp::create(nested, l, v, cst(o))
                              .getResult()
                        : v);
      memref::StoreOp::create(nested, l, value, exchange.buffer, idx);
    }
    scf::YieldOp::create(nested, l);
  });
  gpu::BarrierOp::create(b, loc);
  return exchange;
}

LogicalResult simt::checkBroadcastOnRegisters(Operation *broadcast) {
  auto op = cast<tile::BroadcastOp>(broadcast);
  if (failed(broadcastRegisters(op)))
    return op.emitOpError()
           << "on register tiles needs an input whose layout is a slice of "
              "the result's (every thread holding the input elements its "
              "result elements repeat); convert the input with "
              "tile.convert_layout";
  return success();
}

LogicalResult simt::checkReduceOnRegisters(Operation *reduce) {
  return checkReduce(cast<tile::ReduceOp>(reduce));
}

void simt::populateSIMTRegisterPatterns(const TypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        bool warpShuffles) {
  patterns.add<ConvertLayoutInRegisters, TransInRegisters>(
      converter, patterns.getContext(), warpShuffles);
  patterns.add<BroadcastInRegisters, ReduceInRegisters>(converter,
                                                        patterns.getContext());
}
