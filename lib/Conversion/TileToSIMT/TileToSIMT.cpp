//===- TileToSIMT.cpp - register tiles to per-thread code -----------------===//
//
// convert-tile-to-simt: every tile kernel whose tiles carry #tile.dist
// layouts becomes per-thread code. A tile becomes the vector of the
// elements the thread holds (SIMTLowering.h); elementwise arith and math
// ops, splats, iotas and triangular masks work on those vectors with no
// communication; loads, stores, dots, reductions and layout changes are
// lowered in SIMTMemory.cpp, SIMTDot.cpp, SIMTRegisters.cpp and
// SIMTInverse.cpp. Loops and
// branches carrying tiles carry vectors. Kernels without layouts are left
// to the shared-memory mapping of convert-tile-to-gpu.
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "kda/Conversion/Passes.h"
#include "kda/Dialect/Tile/TileOps.h"
#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::kda {
#define GEN_PASS_DEF_CONVERTTILETOSIMTPASS
#include "Conversion/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;
using namespace mlir::kda;
using namespace mlir::kda::simt;

namespace {

bool isRegisterTile(Type type) { return static_cast<bool>(getLayout(type)); }

/// arith and math ops on register tiles: the same op on the register
/// vectors (every operand and result has the same layout).
struct ElementwiseOnRegisters : ConversionPattern {
  ElementwiseOnRegisters(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp>(op) || op->getNumRegions() != 0)
      return failure();
    if (!llvm::any_of(op->getResultTypes(), isRegisterTile))
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, types,
                         op->getAttrs());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

/// A tensor.empty register tile (the init of a destination-style op whose
/// lowering writes every element, such as tile.unit_lower_inverse) has no
/// defined contents: zeros, which the canonicalizer drops when unused.
struct EmptyOnRegisters : OpConversionPattern<tensor::EmptyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensor::EmptyOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isRegisterTile(op.getType()))
      return failure();
    VectorType vectorType = getRegisterType(op.getType());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, vectorType, rewriter.getZeroAttr(vectorType));
    return success();
  }
};

/// Splat constants become vector constants; other constant tiles have no
/// per-thread form yet.
struct ConstantOnRegisters : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !isRegisterTile(type))
      return failure();
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!splat)
      return failure();
    VectorType vectorType = getRegisterType(type);
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, vectorType,
        DenseElementsAttr::get(vectorType, splat.getSplatValue<Attribute>()));
    return success();
  }
};

struct SplatOnRegisters : OpConversionPattern<tile::SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getResult().getType());
    if (!isRegisterTile(type))
      return failure();
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(
        op, getRegisterType(type), adaptor.getValue());
    return success();
  }
};

/// The coordinates along `dim` of the elements the thread holds, as a
/// vector<registers x index>.
Value coordinateVector(OpBuilder &b, Location loc, DistLayoutAttr layout,
                       int64_t dim) {
  SmallVector<Value> offsets =
      getThreadOffsets(b, loc, layout, getThreadPosition(b, loc));
  auto type = VectorType::get({layout.getNumRegisters()}, b.getIndexType());
  SmallVector<Attribute> registerOffsets;
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r)
    registerOffsets.push_back(
        b.getIndexAttr(layout.getRegisterOffsets(r)[dim]));
  Value constant = arith::ConstantOp::create(
      b, loc, type, DenseElementsAttr::get(type, registerOffsets));
  Value base = vector::BroadcastOp::create(b, loc, type, offsets[dim]);
  return arith::AddIOp::create(b, loc, base, constant);
}

struct IotaOnRegisters : OpConversionPattern<tile::IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::IotaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getResult().getType());
    DistLayoutAttr layout = getLayout(type);
    if (!layout)
      return failure();
    Value coords =
        coordinateVector(rewriter, op.getLoc(), layout, op.getDim());
    VectorType vectorType = getRegisterType(type);
    if (vectorType.getElementType().isIndex())
      rewriter.replaceOp(op, coords);
    else
      rewriter.replaceOpWithNewOp<arith::IndexCastOp>(op, vectorType, coords);
    return success();
  }
};

struct TriMaskOnRegisters : OpConversionPattern<tile::TriMaskOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::TriMaskOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getResult().getType());
    DistLayoutAttr layout = getLayout(type);
    if (!layout)
      return failure();
    Location loc = op.getLoc();
    // lower: j - i <= diagonal; upper: j - i >= diagonal.
    Value rows = coordinateVector(rewriter, loc, layout, 0);
    Value cols = coordinateVector(rewriter, loc, layout, 1);
    Value diff = arith::SubIOp::create(rewriter, loc, cols, rows);
    auto indexType =
        VectorType::get({layout.getNumRegisters()}, rewriter.getIndexType());
    Value diagonal = arith::ConstantOp::create(
        rewriter, loc, indexType,
        DenseElementsAttr::get(indexType,
                               rewriter.getIndexAttr(op.getDiagonal())));
    rewriter.replaceOpWithNewOp<arith::CmpIOp>(
        op, op.getUpper() ? arith::CmpIPredicate::sge
                          : arith::CmpIPredicate::sle,
        diff, diagonal);
    return success();
  }
};

/// Checks that `kernel` can run on registers: every tile has a layout that
/// the program's warps can hold, and no op lacks a per-thread lowering.
LogicalResult checkRegisterKernel(func::FuncOp kernel, int64_t numThreads) {
  if (numThreads % DistLayoutAttr::kWarpSize != 0)
    return kernel.emitError()
           << "a kernel with register tiles runs whole warps: "
              "its tile.tuning's threads must be a multiple of 32, got "
           << numThreads;
  int64_t numWarps = numThreads / DistLayoutAttr::kWarpSize;
  auto checkType = [&](Operation *where, Type type) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return success();
    DistLayoutAttr layout = getLayout(tensor);
    if (!layout)
      return where->emitOpError()
             << "has a tile without a #tile.dist layout (" << type
             << ") in a kernel with register tiles: give every tile of the "
                "kernel a layout, or none";
    if (layout.getMinWarps() > numWarps)
      return where->emitOpError()
             << "has a tile whose layout tells apart " << layout.getMinWarps()
             << " warps; the kernel has " << numWarps;
    return success();
  };
  WalkResult result = kernel.walk([&](Operation *op) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op);
        constant && isRegisterTile(constant.getType()) &&
        !isa<SplatElementsAttr>(constant.getValue())) {
      op->emitOpError() << "on register tiles must be a splat constant";
      return WalkResult::interrupt();
    }
    for (Type type : op->getResultTypes())
      if (failed(checkType(op, type)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(checkType(op, arg.getType())))
            return WalkResult::interrupt();
    // Ops whose layouts must fit together (after every type is checked:
    // they look at their operands' layouts).
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  result = kernel.walk([&](Operation *op) {
    LogicalResult fits = success();
    if (isa<tile::DotOp>(op))
      fits = checkDotOnRegisters(op);
    else if (isa<tile::BroadcastOp>(op))
      fits = checkBroadcastOnRegisters(op);
    else if (isa<tile::ReduceOp>(op))
      fits = checkReduceOnRegisters(op);
    else if (isa<tile::ScanOp>(op))
      fits = checkScanOnRegisters(op);
    return failed(fits) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct ConvertTileToSIMTPass
    : public kda::impl::ConvertTileToSIMTPassBase<ConvertTileToSIMTPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    converter.addConversion([](RankedTensorType type) -> Type {
      if (!isRegisterTile(type))
        return type;
      return getRegisterType(type);
    });

    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!kernel->hasAttr(tile::TileDialect::getKernelAttrName()) ||
          !tile::hasLaidOutTiles(kernel))
        continue;
      int64_t numThreads = numThreadsDefault;
      auto tuning = tile::TuningAttr::lookup(kernel);
      if (tuning) {
        numThreads = tuning.getThreads();
      } else {
        if (numThreads < 1 || numThreads > tile::TuningAttr::kMaxThreads) {
          kernel.emitError()
              << "num-threads (for kernels without a tile.tuning) must be in "
                 "[1, "
              << tile::TuningAttr::kMaxThreads << "], got " << numThreads;
          return signalPassFailure();
        }
        tuning = tile::TuningAttr::get(ctx, numThreads);
        tuning.attachTo(kernel);
      }
      if (failed(checkRegisterKernel(kernel, numThreads)))
        return signalPassFailure();
      orderGlobalAccesses(kernel);

      ConversionTarget target(*ctx);
      target.markUnknownOpDynamicallyLegal(
          [&](Operation *op) { return converter.isLegal(op); });
      RewritePatternSet patterns(ctx);
      patterns.add<ElementwiseOnRegisters, ConstantOnRegisters, EmptyOnRegisters,
                   SplatOnRegisters, IotaOnRegisters, TriMaskOnRegisters>(
          converter, ctx);
      SharedOperandMap sharedOperands;
      // The pass's prefetch (two stages), or the kernel tuning's stages.
      if (prefetch || tuning.getStages() >= 2) {
        prefetchRegisterLoads(kernel);
        prefetchKeptLoads(kernel, sharedOperands, tuning.getStages());
      }
      populateSIMTMemoryPatterns(converter, patterns, sharedOperands);
      populateSIMTDotPatterns(converter, patterns, sharedOperands);
      populateSIMTRegisterPatterns(converter, patterns, warpShuffles);
      populateSIMTScanPatterns(converter, patterns);
      populateSIMTInversePatterns(converter, patterns);
      scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                           target);
      if (failed(applyPartialConversion(kernel, target, std::move(patterns))))
        return signalPassFailure();
      kernel->setAttr(tile::kExplicitBarriersAttrName, UnitAttr::get(ctx));
    }
  }
};

} // namespace
