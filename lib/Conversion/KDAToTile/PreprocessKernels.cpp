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

#include "KernelArguments.h"

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
namespace {

/// Row loads and stores of the preprocessing kernels.
struct RowBuilder : TileValueBuilder {
  /// Loads the rows [row0, row0 + shape[0]) of dimension 1 and the columns
  /// [0, shape[1]) of the last dimension of `buffer` at (batch, ., [head,] .),
  /// masked by `rowEnd` and `colEnd`; returns it extended to f32.
  Value loadRows(Value buffer, ValueRange at, ArrayRef<int64_t> shape,
                 Type element, Value rowEnd, Value colEnd) {
    auto rank = cast<MemRefType>(buffer.getType()).getRank();
    return toF32(load(tileOf(shape, element), buffer, at, {rowEnd, colEnd},
                      {1, rank - 1}));
  }
  /// Stores the f32 tile `x` as `element` with the same masking.
  void storeRows(Value x, Value buffer, ValueRange at, Type element,
                 Value rowEnd, Value colEnd) {
    auto rank = cast<MemRefType>(buffer.getType()).getRank();
    store(toElement(x, element), buffer, at, {rowEnd, colEnd}, {1, rank - 1});
  }
};

/// A preprocessing kernel over blocks of `rows` tokens: argument 0 is the
/// [B, T, heads, ...] input and argument 1 the output of the same shape;
/// program = (batch * heads + head) * ceil(T / rows) + token block.
struct RowBlockKernel {
  func::FuncOp kernel;
  OpBuilder builder;
  Value input, output;
  /// T and ceil(T / rows).
  Value tokens, blocks;
};

/// Creates the kernel of a preprocessing stage with arguments `args`.
RowBlockKernel createRowBlockKernel(const KernelArguments &args, Location loc,
                                    int64_t rows, const KernelTuning &tuning) {
  func::FuncOp kernel = args.createKernel(tuning);
  OpBuilder b = kernelBuilder(kernel);
  Value input = kernel.getArgument(0), output = kernel.getArgument(1);
  Value tokens = memref::DimOp::create(b, loc, input, 1);
  Value blocks = ceilDiv(b, loc, tokens, rows);
  return RowBlockKernel{kernel, b, input, output, tokens, blocks};
}

/// Launches the kernel made by createRowBlockKernel on ceil(T / rows) * B *
/// heads programs along x.
void launchRowBlocks(StageContext &ctx, Location loc, func::FuncOp kernel,
                     ValueRange args, int64_t rows) {
  OpBuilder &h = ctx.host;
  Value hostBlocks =
      ceilDiv(h, loc, memref::DimOp::create(h, loc, args[0], 1), rows);
  Value gridX =
      arith::MulIOp::create(h, loc, hostBlocks, batchHeads(h, loc, args[0]));
  launchKernel(h, loc, kernel, gridX, arith::ConstantIndexOp::create(h, loc, 1),
               args);
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

LogicalResult kda::lowerStage(L2NormOp op, StageContext &ctx) {
  Location loc = op.getLoc();
  auto xType = cast<RankedTensorType>(op.getX().getType());
  const int64_t k = xType.getDimSize(3);
  const int64_t kPad = llvm::PowerOf2Ceil(static_cast<uint64_t>(k));
  Type element = xType.getElementType();

  StringRef name = inputName(op, "x");
  std::string normName = (name + "_norm").str();
  KernelArguments args(ctx, op,
                       {{op.getX(), name, getStageTensorDims("q")},
                        {op.getResult(), normName, getStageTensorDims("q")}});
  ctx.addKey("K", std::to_string(k));

  RowBlockKernel kernel = createRowBlockKernel(
      args, loc, kL2NormRows, tuningOf(ctx, TunedKernel::l2norm));
  OpBuilder &b = kernel.builder;
  Value x = kernel.input, tokens = kernel.tokens;
  RowBuilder r{{b, loc}};

  // program = (batch * H + head) * ceil(T / 32) + row block.
  Value pid = tile::ProgramIdOp::create(b, loc, tile::Axis::x);
  Value block = arith::RemUIOp::create(b, loc, pid, kernel.blocks);
  Value bh = arith::DivUIOp::create(b, loc, pid, kernel.blocks);
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
  Value eps = r.splat(vecType, op.getEps().convertToFloat());
  Value norm =
      math::SqrtOp::create(b, loc, arith::AddFOp::create(b, loc, sum, eps));
  Value rstd = arith::DivFOp::create(b, loc, r.splat(vecType, 1.0f), norm);
  Value scale = tile::BroadcastOp::create(b, loc, tileType, rstd,
                                          b.getDenseI64ArrayAttr({1}));
  Value y = arith::MulFOp::create(b, loc, rows, scale);
  r.storeRows(y, kernel.output, at, element, tokens, r.index(k));

  // Host: ceil(T / 32) * B * H programs.
  launchRowBlocks(ctx, loc, kernel.kernel, args.buffers(), kL2NormRows);
  args.mapResults();
  return success();
}

LogicalResult kda::lowerStage(BetaActivationOp op, StageContext &ctx) {
  Location loc = op.getLoc();
  auto rawType = cast<RankedTensorType>(op.getBetaRaw().getType());
  const float s = op.getAllowNegEigval() ? 2.0f : 1.0f;

  KernelArguments args(
      ctx, op,
      {{op.getBetaRaw(), inputName(op, "beta_raw"), getStageTensorDims("beta")},
       {op.getResult(), "beta"}});
  addDimKey(ctx, "HV", rawType.getDimSize(2));
  ctx.addKey("allow_neg_eigval", op.getAllowNegEigval() ? "1" : "0");

  RowBlockKernel kernel = createRowBlockKernel(
      args, loc, kBetaRows, tuningOf(ctx, TunedKernel::betaActivation));
  OpBuilder &b = kernel.builder;
  Value raw = kernel.input, tokens = kernel.tokens;
  RowBuilder r{{b, loc}};

  // program = (batch * HV + head) * ceil(T / 64) + token block; each loads
  // the 64 tokens of its block of one head (a strided column of beta_raw).
  Value heads = headCount(b, loc, raw);
  Value pid = tile::ProgramIdOp::create(b, loc, tile::Axis::x);
  Value block = arith::RemUIOp::create(b, loc, pid, kernel.blocks);
  Value bh = arith::DivUIOp::create(b, loc, pid, kernel.blocks);
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
  tile::StoreOp::create(b, loc, beta, kernel.output, at, ValueRange{tokens},
                        b.getDenseI64ArrayAttr({1}));

  // Host: ceil(T / 64) * B * HV programs.
  launchRowBlocks(ctx, loc, kernel.kernel, args.buffers(), kBetaRows);
  args.mapResults();
  return success();
}
