//===- PreprocessKernels.cpp - kda.l2norm and kda.beta_activation ---------===//
//
// The two optional preprocessing stages of the forward (kda-algorithm.md,
// stage P), each a row-wise tile kernel over a flat grid:
//
//  - l2norm: one program per (block of 32 tokens, batch * head) loads the
//    [32, K'] rows (K' = K rounded up to a power of two; padding reads as
//    0), sums the squares along K in f32, multiplies by 1 / sqrt(sum + eps)
//    and stores the rows that exist, in the input's dtype.
//  - beta_activation: one program per (block of 64 tokens, batch * value
//    head) loads the 64 logits and stores s * sigmoid(x) in f32 (s = 2 with
//    allow_neg_eigval, else 1).
//
// Both are pure row maps, so fixed-length and packed (varlen) inputs are
// the same: rows past T read as 0 and are never stored.
//
//===----------------------------------------------------------------------===//

#include "StageLowering.h"

#include "kda/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::kda;

/// Tokens per l2norm program.
static constexpr int64_t kL2NormRows = 32;
/// Tokens per beta_activation program.
static constexpr int64_t kBetaRows = 64;
/// Threads per program of either kernel on the GPU.
static constexpr int64_t kPreprocessThreads = 128;

namespace {

/// Elementwise helpers on tiles of one f32 tile type.
struct RowBuilder {
  OpBuilder &b;
  Location loc;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value splat(RankedTensorType type, float v) {
    Value s = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
    return tile::SplatOp::create(b, loc, type, s);
  }
  /// Loads the rows [row0, row0 + shape[0]) of dimension 1 and the columns
  /// [0, shape[1]) of the last dimension of `buffer` at (batch, ., [head,] .),
  /// masked by `rowEnd` and `colEnd`; returns it extended to f32.
  Value loadRows(Value buffer, ValueRange at, ArrayRef<int64_t> shape,
                 Type element, Value rowEnd, Value colEnd) {
    auto rank = cast<MemRefType>(buffer.getType()).getRank();
    auto raw = RankedTensorType::get(shape, element);
    Value x = tile::LoadOp::create(b, loc, raw, buffer, at,
                                   ValueRange{rowEnd, colEnd},
                                   b.getDenseI64ArrayAttr({1, rank - 1}),
                                   nullptr);
    if (element.isF32())
      return x;
    return arith::ExtFOp::create(
        b, loc, RankedTensorType::get(shape, b.getF32Type()), x);
  }
  /// Stores the f32 tile `x` as `element` with the same masking.
  void storeRows(Value x, Value buffer, ValueRange at, Type element,
                 Value rowEnd, Value colEnd) {
    auto rank = cast<MemRefType>(buffer.getType()).getRank();
    auto type = cast<RankedTensorType>(x.getType());
    if (!element.isF32())
      x = arith::TruncFOp::create(
          b, loc, RankedTensorType::get(type.getShape(), element), x);
    tile::StoreOp::create(b, loc, x, buffer, at, ValueRange{rowEnd, colEnd},
                          b.getDenseI64ArrayAttr({1, rank - 1}));
  }
};

/// Launches `kernel` on `gridX` programs along x with `args`.
void launchFlat(OpBuilder &h, Location loc, func::FuncOp kernel, Value gridX,
                ValueRange args) {
  Value one = arith::ConstantIndexOp::create(h, loc, 1);
  tile::LaunchOp::create(h, loc, kernel.getSymName(), gridX, one, one, args);
}

/// The name a preprocessing op gives its input in the manifest: the
/// `kda.input_name` attribute (set when kda.chunk_fwd is decomposed), else
/// `fallback`.
StringRef inputName(Operation *op, StringRef fallback) {
  if (auto name = op->getAttrOfType<StringAttr>(
          KDADialect::getInputNameAttrName()))
    return name.getValue();
  return fallback;
}

} // namespace

LogicalResult kda::lowerL2Norm(L2NormOp op, StageContext &ctx) {
  Location loc = op.getLoc();
  auto xType = cast<RankedTensorType>(op.getX().getType());
  const int64_t k = xType.getDimSize(3);
  const int64_t kPad = llvm::PowerOf2Ceil(static_cast<uint64_t>(k));
  Type element = xType.getElementType();

  StringRef name = inputName(op, "x");
  ctx.describe(op.getX(), name, {"B", "T", "H", "K"});
  ctx.describe(op.getResult(), (name + "_norm").str(), {"B", "T", "H", "K"});
  ctx.addKey("K", std::to_string(k));

  Value xBuf = ctx.buffers.lookup(op.getX());
  Value outBuf = ctx.allocateResult(op.getResult());
  SmallVector<Value> args{xBuf, outBuf};
  func::FuncOp kernel =
      createKernel(ctx.module, ctx.kernelPrefix, ValueRange(args).getTypes(),
                   kPreprocessThreads);
  OpBuilder b(kernel.getBody().front().getTerminator());
  Value x = kernel.getArgument(0), out = kernel.getArgument(1);
  RowBuilder r{b, loc};

  // program = (batch * H + head) * ceil(T / 16) + row block.
  Value tokens = memref::DimOp::create(b, loc, x, 1);
  Value blocks = ceilDiv(b, loc, tokens, kL2NormRows);
  Value pid = tile::ProgramIdOp::create(b, loc, tile::Axis::x);
  Value block = arith::RemUIOp::create(b, loc, pid, blocks);
  Value bh = arith::DivUIOp::create(b, loc, pid, blocks);
  Value numHeads = headCount(b, loc, x);
  Value batch = arith::DivUIOp::create(b, loc, bh, numHeads);
  Value head = arith::RemUIOp::create(b, loc, bh, numHeads);
  Value row0 = arith::MulIOp::create(b, loc, block, r.index(kL2NormRows));
  SmallVector<Value> at{batch, row0, head, r.index(0)};

  auto tileType = RankedTensorType::get({kL2NormRows, kPad}, b.getF32Type());
  Value rows = r.loadRows(x, at, {kL2NormRows, kPad}, element, tokens,
                          r.index(k));
  Value squares = arith::MulFOp::create(b, loc, rows, rows);
  auto vecType = RankedTensorType::get({kL2NormRows}, b.getF32Type());
  Value sum = tile::ReduceOp::create(b, loc, vecType, squares,
                                     tile::CombineKind::add, 1);
  Value eps = tile::SplatOp::create(
      b, loc, vecType,
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(
                                            op.getEps().convertToFloat())));
  Value norm = math::SqrtOp::create(b, loc, arith::AddFOp::create(b, loc, sum, eps));
  Value one = tile::SplatOp::create(
      b, loc, vecType,
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f)));
  Value rstd = arith::DivFOp::create(b, loc, one, norm);
  Value scale = tile::BroadcastOp::create(b, loc, tileType, rstd,
                                          b.getDenseI64ArrayAttr({1}));
  Value y = arith::MulFOp::create(b, loc, rows, scale);
  r.storeRows(y, out, at, element, tokens, r.index(k));

  // Host: ceil(T / 16) * B * H programs.
  OpBuilder &h = ctx.host;
  Value hostBlocks =
      ceilDiv(h, loc, memref::DimOp::create(h, loc, xBuf, 1), kL2NormRows);
  Value gridX =
      arith::MulIOp::create(h, loc, hostBlocks, batchHeads(h, loc, xBuf));
  launchFlat(h, loc, kernel, gridX, args);
  ctx.buffers.map(op.getResult(), outBuf);
  return success();
}

LogicalResult kda::lowerBetaActivation(BetaActivationOp op, StageContext &ctx) {
  Location loc = op.getLoc();
  auto rawType = cast<RankedTensorType>(op.getBetaRaw().getType());
  const float s = op.getAllowNegEigval() ? 2.0f : 1.0f;

  ctx.describe(op.getBetaRaw(), inputName(op, "beta_raw"), {"B", "T", "HV"});
  ctx.describe(op.getResult(), "beta", {"B", "T", "HV"});
  addDimKey(ctx, "HV", rawType.getDimSize(2));
  ctx.addKey("allow_neg_eigval", op.getAllowNegEigval() ? "1" : "0");

  Value rawBuf = ctx.buffers.lookup(op.getBetaRaw());
  Value outBuf = ctx.allocateResult(op.getResult());
  SmallVector<Value> args{rawBuf, outBuf};
  func::FuncOp kernel =
      createKernel(ctx.module, ctx.kernelPrefix, ValueRange(args).getTypes(),
                   kPreprocessThreads);
  OpBuilder b(kernel.getBody().front().getTerminator());
  Value raw = kernel.getArgument(0), out = kernel.getArgument(1);
  RowBuilder r{b, loc};

  // program = (batch * HV + head) * ceil(T / 64) + token block; each loads
  // the 64 tokens of its block of one head (a strided column of beta_raw).
  Value tokens = memref::DimOp::create(b, loc, raw, 1);
  Value blocks = ceilDiv(b, loc, tokens, kBetaRows);
  Value heads = headCount(b, loc, raw);
  Value pid = tile::ProgramIdOp::create(b, loc, tile::Axis::x);
  Value block = arith::RemUIOp::create(b, loc, pid, blocks);
  Value bh = arith::DivUIOp::create(b, loc, pid, blocks);
  Value batch = arith::DivUIOp::create(b, loc, bh, heads);
  Value head = arith::RemUIOp::create(b, loc, bh, heads);
  Value row0 = arith::MulIOp::create(b, loc, block, r.index(kBetaRows));
  SmallVector<Value> at{batch, row0, head};

  auto tileType = RankedTensorType::get({kBetaRows}, b.getF32Type());
  Value x = tile::LoadOp::create(
      b, loc, RankedTensorType::get({kBetaRows}, rawType.getElementType()), raw,
      at, ValueRange{tokens}, b.getDenseI64ArrayAttr({1}), nullptr);
  if (!rawType.getElementType().isF32())
    x = arith::ExtFOp::create(b, loc, tileType, x);
  // s * sigmoid(x) = s / (1 + exp(-x)).
  Value denom = arith::AddFOp::create(
      b, loc, r.splat(tileType, 1.0f),
      math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x)));
  Value beta = arith::DivFOp::create(b, loc, r.splat(tileType, s), denom);
  tile::StoreOp::create(b, loc, beta, out, at, ValueRange{tokens},
                        b.getDenseI64ArrayAttr({1}));

  // Host: ceil(T / 64) * B * HV programs.
  OpBuilder &h = ctx.host;
  Value hostBlocks =
      ceilDiv(h, loc, memref::DimOp::create(h, loc, rawBuf, 1), kBetaRows);
  Value gridX =
      arith::MulIOp::create(h, loc, hostBlocks, batchHeads(h, loc, rawBuf));
  launchFlat(h, loc, kernel, gridX, args);
  ctx.buffers.map(op.getResult(), outBuf);
  return success();
}
