//===- SIMTInverse.cpp - tile.unit_lower_inverse on register tiles --------===//
//
// The inverses of unit lower-triangular register tiles go through shared
// memory: forward substitution walks a column per thread and reads every
// row of its matrix, so the matrices cross threads whatever their layouts.
// After a barrier (readers of an earlier trip through a loop), the owners
// store each input tile into a shared buffer; after a second barrier the
// threads solve the columns of all the matrices at once, each column in
// its registers (tile::emitUnitLowerInverses, the same code as the
// shared-memory mapping), into one output buffer per matrix; after a third
// barrier every thread loads its elements of each inverse in the result's
// layout.
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "kda/Dialect/Tile/TileOps.h"
#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::kda;
using namespace mlir::kda::simt;

namespace {

struct UnitLowerInverseOnRegisters
    : OpConversionPattern<tile::UnitLowerInverseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::UnitLowerInverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getResults().empty() ||
        !llvm::all_of(op.getResultTypes(),
                      [](Type type) { return getLayout(type); }))
      return failure();
    Location loc = op.getLoc();
    int64_t numWarps = getProgramWarps(op);
    SmallVector<Value> inputs, outputs;
    for (auto [i, registers, input] :
         llvm::enumerate(adaptor.getInputs(), op.getInputs())) {
      auto type = cast<RankedTensorType>(input.getType());
      // Threads may still read the buffers of an earlier trip through a
      // loop: one barrier before the first stores.
      inputs.push_back(storeToSharedBuffer(rewriter, loc, registers, type,
                                           numWarps,
                                           /*leadingBarrier=*/i == 0));
      outputs.push_back(memref::AllocOp::create(
          rewriter, loc, cast<MemRefType>(inputs.back().getType())));
    }
    gpu::BarrierOp::create(rewriter, loc);
    ThreadPosition thread = getThreadPosition(rewriter, loc);
    Value threadId = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(
            rewriter, loc, thread.warp,
            arith::ConstantIndexOp::create(rewriter, loc,
                                           DistLayoutAttr::kWarpSize)),
        thread.lane);
    tile::emitUnitLowerInverses(rewriter, loc, inputs, outputs, threadId,
                                numWarps * DistLayoutAttr::kWarpSize);
    gpu::BarrierOp::create(rewriter, loc);
    SmallVector<Value> results;
    for (auto [buffer, result] : llvm::zip(outputs, op.getResults()))
      results.push_back(loadFromSharedBuffer(
          rewriter, loc, buffer, cast<RankedTensorType>(result.getType())));
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void simt::populateSIMTInversePatterns(const TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<UnitLowerInverseOnRegisters>(converter, patterns.getContext());
}
