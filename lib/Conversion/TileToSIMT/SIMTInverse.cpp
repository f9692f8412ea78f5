//===- SIMTInverse.cpp - tile.unit_lower_inverse on register tiles --------===//
//
// The inverses of unit lower-triangular register tiles go through shared
// memory: forward substitution walks a column per thread and reads every
// row of its matrix, so the matrices cross threads whatever their layouts.
// After a barrier (readers of an earlier trip through a loop), the owners
// store each input tile into one shared buffer of all the inputs; after a
// second barrier the threads solve the columns of all the matrices at
// once, each column in its registers (tile::emitUnitLowerInverses, the
// same code as the shared-memory mapping), into one buffer of all the
// inverses, transposed (each column one row of the buffer, written with
// wide stores); after a third barrier every thread loads its elements of
// each inverse in the result's layout.
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

/// Floats of padding after each row of the inverses' buffer: rows of 16
/// floats padded to 20 put the 8 rows (columns of the inverse) that a
/// warp's accumulator-layout read touches in different banks, and keep
/// every row 16-byte aligned.
constexpr int64_t kInverseRowPad = 4;

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
    // One buffer holds every input, one every inverse (matrix i, n_i x n_i,
    // in rows [r_i, r_i + n_i) of both, r_i the sum of the n_j before it).
    // Each is live across the whole op as one allocation: the threads solve
    // different matrices at the same time, so the bytes of a matrix solved
    // earlier in program order must not be given to one solved later.
    SmallVector<int64_t> sizes, firstRows;
    int64_t rows = 0, width = 0;
    for (Value input : op.getInputs()) {
      int64_t n = cast<RankedTensorType>(input.getType()).getDimSize(0);
      sizes.push_back(n);
      firstRows.push_back(rows);
      rows += n;
      width = std::max(width, n);
    }
    auto space = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                            gpu::AddressSpace::Workgroup);
    auto bufferType = MemRefType::get({rows, width}, rewriter.getF32Type(),
                                      MemRefLayoutAttrInterface(), space);
    // The inverses are written transposed (a thread's column is a row of
    // the buffer, stored 16 bytes at a time) in rows padded by 4 floats,
    // so that the result layouts' transposed reads spread over the banks.
    auto outputType = MemRefType::get(
        {rows, width + kInverseRowPad}, rewriter.getF32Type(),
        MemRefLayoutAttrInterface(), space);
    Value inputBuffer = memref::AllocOp::create(rewriter, loc, bufferType);
    Value outputBuffer = memref::AllocOp::create(rewriter, loc, outputType);
    auto matrix = [&](Value buffer, int64_t i) -> Value {
      return memref::SubViewOp::create(
          rewriter, loc, buffer,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(firstRows[i]),
                                 rewriter.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(sizes[i]),
                                 rewriter.getIndexAttr(sizes[i])},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                                 rewriter.getIndexAttr(1)});
    };
    // Threads may still read the buffers of an earlier trip through a loop.
    gpu::BarrierOp::create(rewriter, loc);
    SmallVector<Value> inputs, outputs;
    for (auto [i, registers, input] :
         llvm::enumerate(adaptor.getInputs(), op.getInputs())) {
      inputs.push_back(matrix(inputBuffer, i));
      outputs.push_back(matrix(outputBuffer, i));
      storeToShared(rewriter, loc, registers,
                    cast<RankedTensorType>(input.getType()), numWarps,
                    inputs.back());
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
                                numWarps * DistLayoutAttr::kWarpSize,
                                /*transposedOutputs=*/true);
    gpu::BarrierOp::create(rewriter, loc);
    SmallVector<Value> results;
    for (auto [buffer, result] : llvm::zip(outputs, op.getResults()))
      results.push_back(loadFromSharedBuffer(
          rewriter, loc, buffer, cast<RankedTensorType>(result.getType()),
          /*permutation=*/{1, 0}));
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void simt::populateSIMTInversePatterns(const TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<UnitLowerInverseOnRegisters>(converter, patterns.getContext());
}
