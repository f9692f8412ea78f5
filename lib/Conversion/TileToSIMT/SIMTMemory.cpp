//===- SIMTMemory.cpp - tile.load / tile.store of register tiles ----------===//
//
// Each thread reads the elements it holds straight from global memory into
// its registers, and writes them back from there: no shared memory. An
// element outside the load's box takes the padding value; a store writes
// only the elements inside its box, each from one thread (the owner of its
// copies).
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "kda/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::kda;
using namespace mlir::kda::simt;

namespace {

/// The memref indices of a tile element and whether it lies in the box.
struct ElementAccess {
  SmallVector<Value> indices;
  Value inBounds;
};

/// Addressing shared by loads and stores: tile dimension j runs along
/// memref dimension dims[j] from indices[dims[j]], inside bounds[j].
class TileAddressing {
public:
  TileAddressing(OpBuilder &b, Location loc, Value memref, ValueRange indices,
                 ValueRange bounds, ArrayRef<int64_t> dims,
                 DistLayoutAttr layout, ThreadPosition thread)
      : b(b), loc(loc), indices(indices), dims(dims), layout(layout) {
    for (auto [j, dim] : llvm::enumerate(dims))
      this->bounds.push_back(
          bounds.empty() ? memref::DimOp::create(b, loc, memref, dim).getResult()
                         : bounds[j]);
    SmallVector<Value> offsets = getThreadOffsets(b, loc, layout, thread);
    for (auto [j, dim] : llvm::enumerate(dims))
      threadBase.push_back(
          arith::AddIOp::create(b, loc, indices[dim], offsets[j]));
  }

  ElementAccess access(int64_t reg) {
    SmallVector<int64_t> offsets = layout.getRegisterOffsets(reg);
    ElementAccess result{SmallVector<Value>(indices.begin(), indices.end()),
                         Value()};
    for (auto [j, dim] : llvm::enumerate(dims)) {
      Value index = threadBase[j];
      if (offsets[j])
        index = arith::AddIOp::create(
            b, loc, index, arith::ConstantIndexOp::create(b, loc, offsets[j]));
      result.indices[dim] = index;
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           index, bounds[j]);
      result.inBounds = result.inBounds ? arith::AndIOp::create(
                                              b, loc, result.inBounds, inside)
                                        : inside;
    }
    return result;
  }

private:
  OpBuilder &b;
  Location loc;
  ValueRange indices;
  ArrayRef<int64_t> dims;
  DistLayoutAttr layout;
  SmallVector<Value> bounds;
  SmallVector<Value> threadBase;
};

struct LoadToRegisters : OpConversionPattern<tile::LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getResult().getType());
    DistLayoutAttr layout = getLayout(type);
    if (!layout)
      return failure();
    Location loc = op.getLoc();
    Type element = type.getElementType();
    TypedAttr padding = op.getPaddingAttr();
    if (!padding)
      padding = cast<TypedAttr>(rewriter.getZeroAttr(element));
    Value pad = arith::ConstantOp::create(rewriter, loc, padding);
    TileAddressing addressing(rewriter, loc, adaptor.getSource(),
                              adaptor.getIndices(), adaptor.getBounds(),
                              op.getDims(), layout,
                              getThreadPosition(rewriter, loc));
    SmallVector<Value> values;
    for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
      ElementAccess access = addressing.access(r);
      auto ifInside = scf::IfOp::create(
          rewriter, loc, access.inBounds,
          [&](OpBuilder &b, Location l) {
            Value v = memref::LoadOp::create(b, l, adaptor.getSource(),
                                             access.indices);
            scf::YieldOp::create(b, l, v);
          },
          [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, pad); });
      values.push_back(ifInside.getResult(0));
    }
    rewriter.replaceOp(op, buildRegisters(rewriter, loc, getRegisterType(type),
                                          values));
    return success();
  }
};

struct StoreFromRegisters : OpConversionPattern<tile::StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getValue().getType());
    DistLayoutAttr layout = getLayout(type);
    if (!layout)
      return failure();
    Location loc = op.getLoc();
    ThreadPosition thread = getThreadPosition(rewriter, loc);
    Value owner =
        isCopyOwner(rewriter, loc, layout, thread, getProgramWarps(op));
    TileAddressing addressing(rewriter, loc, adaptor.getDest(),
                              adaptor.getIndices(), adaptor.getBounds(),
                              op.getDims(), layout, thread);
    for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
      ElementAccess access = addressing.access(r);
      Value write = arith::AndIOp::create(rewriter, loc, owner, access.inBounds);
      Value v = extractRegister(rewriter, loc, adaptor.getValue(), r);
      scf::IfOp::create(rewriter, loc, write, [&](OpBuilder &b, Location l) {
        memref::StoreOp::create(b, l, v, adaptor.getDest(), access.indices);
        scf::YieldOp::create(b, l);
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void simt::populateSIMTMemoryPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<LoadToRegisters, StoreFromRegisters>(converter,
                                                    patterns.getContext());
}
