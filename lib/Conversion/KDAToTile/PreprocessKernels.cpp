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
// Built for the fused per-chunk kernel (fusable-chunk-stages with
// fuse-preprocessing, when a per-chunk stage of the gate cumsum reads the
// result), both take the chunk programs of the
// gate cumsum instead: one per (chunk, batch * value head), over the gate's
// g and cu_seqlens, so that kda-fuse-tile-launches joins them to the
// per-chunk stages. l2norm then normalizes the chunk's rows of the q/k head
// its value head reads (with grouped value heads, each value head of a
// group computes the same rows), in blocks of 32 rows; beta_activation the
// chunk's logits of its value head. Where only that kernel reads the
// result, kda-privatize-chunk-buffers keeps it in the program's own buffer.
//
//===----------------------------------------------------------------------===//

#include "KernelArguments.h"

#include "kda/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// The rows [row0, row0 + rows) of dimension 1 of `x` at (batch, ., head,
/// 0), rows at or past `rowEnd` excluded: normalized to unit L2 norm along
/// the last dimension (k columns, padded to a power of two), stored in `out`.
static void normalizeRows(RowBuilder &r, L2NormOp op, Value x, Value out,
                          Value batch, Value row0, Value head, Value rowEnd,
                          int64_t rows) {
  OpBuilder &b = r.b;
  Location loc = r.loc;
  auto xType = cast<RankedTensorType>(op.getX().getType());
  const int64_t k = xType.getDimSize(3);
  const int64_t kPad = llvm::PowerOf2Ceil(static_cast<uint64_t>(k));
  Type element = xType.getElementType();
  SmallVector<Value> at{batch, row0, head, r.index(0)};

  auto tileType = RankedTensorType::get({rows, kPad}, b.getF32Type());
  Value x2d = r.loadRows(x, at, {rows, kPad}, element, rowEnd, r.index(k));
  Value squares = arith::MulFOp::create(b, loc, x2d, x2d);
  auto vecType = RankedTensorType::get({rows}, b.getF32Type());
  Value sum = tile::ReduceOp::create(b, loc, vecType, squares,
                                     tile::CombineKind::add, 1);
  Value eps = r.splat(vecType, op.getEps().convertToFloat());
  Value norm =
      math::SqrtOp::create(b, loc, arith::AddFOp::create(b, loc, sum, eps));
  Value rstd = arith::DivFOp::create(b, loc, r.splat(vecType, 1.0f), norm);
  Value scale = tile::BroadcastOp::create(b, loc, tileType, rstd,
                                          b.getDenseI64ArrayAttr({1}));
  Value y = arith::MulFOp::create(b, loc, x2d, scale);
  r.storeRows(y, out, at, element, rowEnd, r.index(k));
}

/// The logits of `raw` at (batch, [row0, row0 + rows), head), rows at or
/// past `rowEnd` excluded, as s * sigmoid(x) in f32 into `out` (s = 2 with
/// allow_neg_eigval, else 1); with `approximate`, as
/// TileValueBuilder::sigmoid's approximate form.
static void activateBeta(RowBuilder &r, BetaActivationOp op, Value raw,
                         Value out, Value batch, Value row0, Value head,
                         Value rowEnd, int64_t rows, bool approximate) {
  OpBuilder &b = r.b;
  Location loc = r.loc;
  auto rawType = cast<RankedTensorType>(op.getBetaRaw().getType());
  const float s = op.getAllowNegEigval() ? 2.0f : 1.0f;
  SmallVector<Value> at{batch, row0, head};
  auto tileType = RankedTensorType::get({rows}, b.getF32Type());
  Value x = tile::LoadOp::create(
      b, loc, RankedTensorType::get({rows}, rawType.getElementType()), raw,
      at, ValueRange{rowEnd}, b.getDenseI64ArrayAttr({1}), nullptr);
  if (!rawType.getElementType().isF32())
    x = arith::ExtFOp::create(b, loc, tileType, x);
  Value beta = r.sigmoid(x, s, approximate);
  tile::StoreOp::create(b, loc, beta, out, at, ValueRange{rowEnd},
                        b.getDenseI64ArrayAttr({1}));
}

/// l2norm on the gate cumsum's chunk programs (ctx.chunkGate): kernel
/// arguments x, x_norm, the gate's g and cu_seqlens, as lowerChunkStage
/// expects them (g gives the grid and the value head count).
static LogicalResult lowerL2NormPerChunk(L2NormOp op, StageContext &ctx,
                                         StringRef name, StringRef normName) {
  Location loc = op.getLoc();
  GateCumsumOp gate = ctx.chunkGate;
  const int64_t bt = gate.getChunkSize();
  KernelArguments args(ctx, op,
                       {{op.getX(), name, getStageTensorDims("q")},
                        {op.getResult(), normName, getStageTensorDims("q")},
                        {gate.getG(), "g"},
                        {gate.getCuSeqlens(), "cu_seqlens"}});
  const int64_t rows = std::min(bt, kL2NormRows);
  lowerChunkStage(
      ctx, loc, args, gate.getCuSeqlens(), tuningOf(ctx, TunedKernel::l2norm),
      bt, [&](ChunkKernel &kernel) {
        ChunkKernelBody body(kernel, loc);
        OpBuilder &b = kernel.builder;
        Value x, out;
        args.bind(kernel.kernel, x, out);
        // for r = 0 .. BT step rows: the rows [start + r, start + r + rows).
        auto loop = scf::ForOp::create(b, loc, body.t.index(0),
                                       body.t.index(bt), body.t.index(rows));
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        RowBuilder r{{b, loc}};
        Value row0 = arith::AddIOp::create(b, loc, body.rowStart,
                                           loop.getInductionVar());
        normalizeRows(r, op, x, out, body.batch, row0, body.qkHead,
                      body.rowEnd, rows);
      });
  return success();
}

/// beta_activation on the gate cumsum's chunk programs (ctx.chunkGate):
/// kernel arguments beta_raw, beta, the gate's g and cu_seqlens.
static LogicalResult lowerBetaPerChunk(BetaActivationOp op, StageContext &ctx,
                                       StringRef name) {
  Location loc = op.getLoc();
  GateCumsumOp gate = ctx.chunkGate;
  const int64_t bt = gate.getChunkSize();
  KernelArguments args(ctx, op,
                       {{op.getBetaRaw(), name, getStageTensorDims("beta")},
                        {op.getResult(), "beta"},
                        {gate.getG(), "g"},
                        {gate.getCuSeqlens(), "cu_seqlens"}});
  lowerChunkStage(ctx, loc, args, gate.getCuSeqlens(),
                  tuningOf(ctx, TunedKernel::betaActivation), bt,
                  [&](ChunkKernel &kernel) {
                    ChunkKernelBody body(kernel, loc);
                    Value raw, out;
                    args.bind(kernel.kernel, raw, out);
                    RowBuilder r{{kernel.builder, loc}};
                    activateBeta(r, op, raw, out, body.batch, body.rowStart,
                                 body.head, body.rowEnd, bt,
                                 ctx.approximateSigmoid);
                  });
  return success();
}

LogicalResult kda::lowerStage(L2NormOp op, StageContext &ctx) {
  Location loc = op.getLoc();
  auto xType = cast<RankedTensorType>(op.getX().getType());
  const int64_t k = xType.getDimSize(3);

  StringRef name = inputName(op, "x");
  std::string normName = (name + "_norm").str();
  ctx.addKey("K", std::to_string(k));
  if (ctx.chunkGate)
    return lowerL2NormPerChunk(op, ctx, name, normName);
  KernelArguments args(ctx, op,
                       {{op.getX(), name, getStageTensorDims("q")},
                        {op.getResult(), normName, getStageTensorDims("q")}});

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
  normalizeRows(r, op, x, kernel.output, batch, row0, head, tokens,
                kL2NormRows);

  // Host: ceil(T / 32) * B * H programs.
  launchRowBlocks(ctx, loc, kernel.kernel, args.buffers(), kL2NormRows);
  args.mapResults();
  return success();
}

LogicalResult kda::lowerStage(BetaActivationOp op, StageContext &ctx) {
  Location loc = op.getLoc();
  auto rawType = cast<RankedTensorType>(op.getBetaRaw().getType());
  addDimKey(ctx, "HV", rawType.getDimSize(2));
  ctx.addKey("allow_neg_eigval", op.getAllowNegEigval() ? "1" : "0");
  StringRef name = inputName(op, "beta_raw");
  if (ctx.chunkGate)
    return lowerBetaPerChunk(op, ctx, name);

  KernelArguments args(
      ctx, op,
      {{op.getBetaRaw(), name, getStageTensorDims("beta")},
       {op.getResult(), "beta"}});

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
  activateBeta(r, op, raw, kernel.output, batch, row0, head, tokens,
               kBetaRows, ctx.approximateSigmoid);

  // Host: ceil(T / 64) * B * HV programs.
  launchRowBlocks(ctx, loc, kernel.kernel, args.buffers(), kBetaRows);
  args.mapResults();
  return success();
}
