//===- SIMTScan.cpp - tile.scan on register tiles -------------------------===//
//
// An inclusive scan along dimension d of a tile in a #tile.dist layout,
// where element x along d lies at x = (((w * batch + b) * outer + o) *
// lanes + l) * elems + e (TileLayouts.td), runs from the innermost factor
// out, for each column (the registers that differ only along d):
//
//  1. in registers, over e: each (b, o) segment of a thread's column is
//     scanned in order, and its last value is the segment's total;
//  2. across the lanes along d: an inclusive Hillis-Steele scan of the
//     segment totals with shuffles up by 1, 2, 4, ... lane strides (a lane
//     combines only what comes from lanes before it along d), then each
//     element takes the total of the lanes before its own (a shuffle up by
//     one lane stride; nothing in the first lane) and every lane the
//     segment's total over all lanes (an indexed shuffle from the last lane
//     along d);
//  3. in registers, over the (b, o) segments in order: each takes the
//     running total of the segments before it;
//  4. across the warps along d (exchangeAcrossWarps, shared with the
//     reductions): each warp's column totals go to a shared
//     buffer between two barriers, and every thread combines those of the
//     warps before its own, in warp order.
//
// A reverse scan runs the same steps from the other end: registers in
// descending order, shuffles down, the lanes, segments and warps after
// its own. The input and result share one layout (tile.scan's types are
// equal).
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "kda/Dialect/Tile/TileOps.h"
#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Transforms/DialectConversion.h"

#include <algorithm>
#include <map>

using namespace mlir;
using namespace mlir::kda;
using namespace mlir::kda::simt;

namespace {

/// The part of a scan's checks that the lowering relies on.
LogicalResult checkScan(tile::ScanOp op) {
  Type element = cast<RankedTensorType>(op.getType()).getElementType();
  if (element.getIntOrFloatBitWidth() != 32)
    return op.emitOpError()
           << "on register tiles scans 32-bit elements (warp shuffles), got "
           << element;
  return success();
}

struct ScanInRegisters : OpConversionPattern<tile::ScanOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    DistLayoutAttr layout = getLayout(type);
    if (!layout || failed(checkScan(op)))
      return failure();
    Location loc = op.getLoc();
    Type element = type.getElementType();
    const int64_t dim = op.getDim();
    const bool reverse = op.getReverse();
    const int64_t numWarps = getProgramWarps(op);
    tile::CombineKind kind = op.getKind();
    auto combine = [&](Value lhs, Value rhs) {
      return tile::emitCombine(rewriter, loc, kind, lhs, rhs);
    };
    auto i32 = [&](int64_t v) {
      return arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                          v);
    };
    auto cst = [&](int64_t v) {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value identity = arith::ConstantOp::create(
        rewriter, loc, tile::getCombineIdentity(rewriter, kind, element));

    // Columns: the registers with equal offsets outside `dim` (in the
    // order of the slice layout's registers), each a map from the offset
    // along `dim` to the register, in order along `dim`.
    DistLayoutAttr slice = layout.getSlice(dim);
    SmallVector<std::map<int64_t, int64_t>> columns(
        slice.getNumRegisters());
    for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
      SmallVector<int64_t> offsets = layout.getRegisterOffsets(r);
      int64_t along = offsets[dim];
      offsets.erase(offsets.begin() + dim);
      int64_t column = -1;
      for (int64_t s = 0; s < slice.getNumRegisters() && column < 0; ++s)
        if (slice.getRegisterOffsets(s) == offsets)
          column = s;
      assert(column >= 0 && "every register belongs to a column");
      columns[column][along] = r;
    }

    const int64_t elems = layout.getElems()[dim];
    const int64_t lanes = layout.getLanes()[dim];
    const int64_t laneStride = layout.getLaneStrides()[dim];
    ThreadPosition thread = getThreadPosition(rewriter, loc);
    // The thread's lane coordinate along `dim`, and the lane of its group
    // that the scan reaches last (the last one along `dim`, the first one
    // in reverse), which holds the group's total.
    Value laneAlong = arith::RemUIOp::create(
        rewriter, loc,
        arith::DivUIOp::create(rewriter, loc, thread.lane, cst(laneStride)),
        cst(lanes));
    Value endLane = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getI32Type(),
        reverse ? arith::SubIOp::create(
                      rewriter, loc, thread.lane,
                      arith::MulIOp::create(rewriter, loc, laneAlong,
                                            cst(laneStride)))
                      .getResult()
                : arith::AddIOp::create(
                      rewriter, loc, thread.lane,
                      arith::MulIOp::create(
                          rewriter, loc,
                          arith::SubIOp::create(rewriter, loc,
                                                cst(lanes - 1), laneAlong),
                          cst(laneStride)))
                      .getResult());
    // The lanes that come first along the scan's direction, and the shuffle
    // that brings a value from a lane before.
    Value firstLaneAlong = cst(reverse ? lanes - 1 : 0);
    gpu::ShuffleMode fromBefore =
        reverse ? gpu::ShuffleMode::DOWN : gpu::ShuffleMode::UP;

    SmallVector<Value> values(layout.getNumRegisters());
    SmallVector<Value> columnTotals(columns.size());
    for (auto [c, column] : llvm::enumerate(columns)) {
      Value carry; // total of the segments before, over every lane
      SmallVector<int64_t> segment;
      auto finishSegment = [&]() {
        // 2. Across the lanes along `dim`.
        Value total = values[segment.back()];
        Value inclusive = total;
        for (int64_t step = 1; step < lanes; step *= 2) {
          auto shifted = gpu::ShuffleOp::create(
              rewriter, loc, inclusive, i32(step * laneStride),
              i32(DistLayoutAttr::kWarpSize), fromBefore);
          // A lane at least `step` lanes from the first one takes it.
          Value from =
              reverse ? arith::CmpIOp::create(rewriter, loc,
                                              arith::CmpIPredicate::ult,
                                              laneAlong, cst(lanes - step))
                      : arith::CmpIOp::create(rewriter, loc,
                                              arith::CmpIPredicate::uge,
                                              laneAlong, cst(step));
          inclusive = arith::SelectOp::create(
              rewriter, loc, from,
              combine(shifted.getShuffleResult(), inclusive), inclusive);
        }
        Value before;
        if (lanes > 1) {
          auto shifted = gpu::ShuffleOp::create(
              rewriter, loc, inclusive, i32(laneStride),
              i32(DistLayoutAttr::kWarpSize), fromBefore);
          Value first = arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::eq, laneAlong,
              firstLaneAlong);
          before = arith::SelectOp::create(rewriter, loc, first, identity,
                                           shifted.getShuffleResult());
          Value all = gpu::ShuffleOp::create(
                          rewriter, loc, inclusive, endLane,
                          i32(DistLayoutAttr::kWarpSize),
                          gpu::ShuffleMode::IDX)
                          .getShuffleResult();
          total = all;
        }
        // 3. The segments before, then the lanes before.
        Value offset = before;
        if (carry)
          offset = offset ? combine(carry, offset) : carry;
        if (offset)
          for (int64_t r : segment)
            values[r] = combine(offset, values[r]);
        carry = carry ? combine(carry, total) : total;
        segment.clear();
      };
      // 1. In registers, segment by segment (elems consecutive offsets),
      // in the scan's direction.
      SmallVector<std::pair<int64_t, int64_t>> order(column.begin(),
                                                     column.end());
      if (reverse)
        std::reverse(order.begin(), order.end());
      for (auto [along, r] : order) {
        Value v = extractRegister(rewriter, loc, adaptor.getInput(), r);
        bool starts = along % (lanes * elems) == (reverse ? elems - 1 : 0);
        if (starts && !segment.empty())
          finishSegment();
        values[r] = segment.empty() ? v : combine(values[segment.back()], v);
        segment.push_back(r);
      }
      finishSegment();
      columnTotals[c] = carry;
    }

    // 4. Across the warps along `dim`.
    const int64_t warps = layout.getWarps()[dim];
    if (warps > 1) {
      // Every lane along `dim` holds its column totals.
      WarpExchange exchange = exchangeAcrossWarps(
          rewriter, loc, layout, dim, columnTotals, thread, numWarps);
      for (auto [c, column] : llvm::enumerate(columns)) {
        // The warps before this thread's along the scan, in order
        // (identity in the first).
        Value before = identity;
        for (int64_t i = 0; i + 1 < warps; ++i) {
          int64_t w = reverse ? warps - 1 - i : i;
          Value v = exchange.load(rewriter, loc, w, c);
          Value counts = arith::CmpIOp::create(
              rewriter, loc,
              reverse ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::ult,
              cst(w), exchange.warpAlong);
          before = arith::SelectOp::create(rewriter, loc, counts,
                                           combine(before, v), before);
        }
        for (auto [along, r] : column)
          values[r] = combine(before, values[r]);
      }
    }

    rewriter.replaceOp(op, buildRegisters(rewriter, loc,
                                          getRegisterType(type), values));
    return success();
  }
};

} // namespace

LogicalResult simt::checkScanOnRegisters(Operation *scan) {
  return checkScan(cast<tile::ScanOp>(scan));
}

void simt::populateSIMTScanPatterns(const TypeConverter &converter,
                                    RewritePatternSet &patterns) {
  patterns.add<ScanInRegisters>(converter, patterns.getContext());
}
