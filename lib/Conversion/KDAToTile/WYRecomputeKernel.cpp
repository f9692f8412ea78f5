//===- WYRecomputeKernel.cpp - kda.wy_recompute as a tile kernel ----------===//
//
// fla's recompute_w_u_fwd_kda_kernel: one program per (chunk, batch * value
// head), numbered along the grid's x axis like the inter_solve kernel. Each
// program
//
//  1. loads the chunk's [BT, BT] block of M = (I + Akk)^-1 (rows and
//     columns past the sequence end read as 0 and entries above the
//     diagonal are masked to 0, so whatever the buffer holds there is
//     ignored) and the chunk's beta;
//  2. for every K tile of BK columns: w = M . rd(beta * k * 2^G) and
//     kg = k * 2^(G_last - G), where G_last is G at the chunk's last valid
//     row (min(chunk start + BT, sequence end) - 1);
//  3. for every V tile of BV columns: u = M . rd(beta * v).
//
// rd() rounds to the I/O dtype, as fla does before its bf16 GEMMs. The dots
// run at tf32: their operands are I/O-dtype values (M, and the rounded
// products), which f16 and bf16 represent exactly in tf32, so for those
// dtypes the products are exact and the dot equals fla's bf16/f16 GEMM with
// f32 accumulation; for f32 I/O it is fla's default fp32 tl.dot precision
// (tf32). Accumulation is f32; outputs are cast to their dtypes (w and kg:
// k's, u: v's). Rows past the sequence end are never stored.
//
//===----------------------------------------------------------------------===//

#include "StageLowering.h"
#include "TileValueBuilder.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstdio>

using namespace mlir;
using namespace mlir::kda;

/// Threads per wy_recompute program on the GPU (4 warps).
static constexpr int64_t kWYThreads = 128;

/// Register limit per thread (tile.max_registers). At B=1, T=8192,
/// H=HV=96, K=V=128 on an H200 the kernel ran 488 us at 96 (ptxas spills
/// 164 bytes), 424 at 128 (12 bytes), 462 at 144, 458 at 160 and 575
/// with no limit (192 registers).
static constexpr int64_t kWYRegisters = 128;

/// Widest K or V tile of a program: [BT, 64] f32 tiles next to the
/// [BT, BT] block of M.
static constexpr int64_t kMaxColumnTile = 64;

namespace {

/// The body of one wy_recompute program.
struct WYRecomputeKernel {
  TileValueBuilder t;
  // Arguments.
  Value k, v, G, beta, m, w, u, kg;
  // Program coordinates.
  Value batch, head, qkHead, rowStart, rowEnd;
  // Static sizes: K, V, their tile widths BK and BV, the chunk size BT.
  int64_t kDim = 0, vDim = 0, bk = 0, bv = 0, bt = 0;
  /// Element types of k (also M, w and kg) and of v (also u).
  Type kType, vType;

  OpBuilder &b() { return t.b; }
  Location loc() { return t.loc; }

  /// The [BT, width] f32 tile of the chunk's rows and columns [col, col +
  /// width) of a [B, T, heads, dim] buffer at head `h`; rows past the
  /// sequence end and columns >= dim read as 0.
  Value loadRows(Value source, Value h, Value col, int64_t width,
                 int64_t dim) {
    auto elem = cast<MemRefType>(source.getType()).getElementType();
    return t.toF32(t.load(t.tileOf({bt, width}, elem), source,
                          {batch, rowStart, h, col}, {rowEnd, t.index(dim)},
                          {1, 3}));
  }
  /// Stores the f32 tile `value` as `element` at the chunk's rows and
  /// columns [col, ...) of a [B, T, HV, dim] output; rows past the sequence
  /// end and columns >= dim are dropped.
  void storeRows(Value value, Type element, Value dest, Value col,
                 int64_t dim) {
    t.store(t.toElement(value, element), dest, {batch, rowStart, head, col},
            {rowEnd, t.index(dim)}, {1, 3});
  }

  /// Creates `for col = 0 .. dim step width` and positions the builder in
  /// its body; returns the column.
  Value columnLoop(int64_t dim, int64_t width) {
    auto loop = scf::ForOp::create(b(), loc(), t.index(0), t.index(dim),
                                   t.index(width));
    b().setInsertionPointToStart(loop.getBody());
    return loop.getInductionVar();
  }

  void build() {
    Value rowsLeft = t.subIndex(rowEnd, rowStart);
    // M: rows and columns past the sequence end read as 0, and entries
    // above the diagonal (0 in a lower-triangular M) are masked to 0, so
    // that whatever the buffer holds there never reaches the dots.
    //
    // The dots take M and the rounded right-hand sides in their 16-bit
    // type when k (and, for u, v) is bf16 or f16: the values are exact in
    // it and the products exact in f32, so the result equals the tf32 dot
    // of the f32 tiles, with half the shared memory and no conversions.
    const bool narrowK = kType.isBF16() || kType.isF16();
    const bool narrowV = narrowK && vType == kType;
    Value mLoaded = t.load(t.tileOf({bt, bt}, kType), m,
                           {batch, rowStart, head, t.index(0)},
                           {rowEnd, rowsLeft}, {1, 3});
    Value lower = tile::TriMaskOp::create(
        b(), loc(), t.tileOf({bt, bt}, b().getI1Type()), /*upper=*/false,
        /*diagonal=*/0);
    Value mNarrow = t.select(lower, mLoaded,
                             t.splat(t.tileOf({bt, bt}, kType), 0.0));
    Value mTile = narrowK && narrowV ? Value() : t.toF32(mNarrow);
    auto betaElem = cast<MemRefType>(beta.getType()).getElementType();
    Value betaCol = t.toF32(t.load(t.tileOf({bt}, betaElem), beta,
                                   {batch, rowStart, head}, {rowEnd}, {1}));
    // The chunk's last valid row.
    Value lastRow = t.subIndex(
        t.minIndex(t.addIndex(rowStart, t.index(bt)), rowEnd), t.index(1));

    {
      // w and kg, per K tile.
      OpBuilder::InsertionGuard guard(b());
      Value col = columnLoop(kDim, bk);
      Value kTile = loadRows(k, qkHead, col, bk, kDim);
      Value gTile = loadRows(G, head, col, bk, kDim);
      Value betaRows = t.broadcast(betaCol, 1, {bt, bk});
      Value kb = t.mul(t.mul(kTile, t.exp2(gTile)), betaRows);
      Value wTile =
          narrowK ? t.dot(mNarrow, t.toElement(kb, kType), t.zeros({bt, bk}),
                          tile::Precision::tf32)
                  : t.dot(mTile, t.roundTo(kb, kType), t.zeros({bt, bk}),
                          tile::Precision::tf32);
      storeRows(wTile, kType, w, col, kDim);
      // kg = k * 2^(G_last - G); the exponent is <= 0 on valid rows (G does
      // not increase along a chunk), and padded rows have k = 0.
      Value gLast = t.load(t.tileOf({bk}, t.f32()), G,
                           {batch, lastRow, head, col}, {t.index(kDim)}, {3});
      Value decay = t.exp2(t.sub(t.broadcast(gLast, 0, {bt, bk}), gTile));
      storeRows(t.mul(kTile, decay), kType, kg, col, kDim);
    }
    {
      // u, per V tile.
      OpBuilder::InsertionGuard guard(b());
      Value col = columnLoop(vDim, bv);
      Value vTile = loadRows(v, head, col, bv, vDim);
      Value betaRows = t.broadcast(betaCol, 1, {bt, bv});
      Value vb = t.mul(vTile, betaRows);
      Value uTile =
          narrowV ? t.dot(mNarrow, t.toElement(vb, vType), t.zeros({bt, bv}),
                          tile::Precision::tf32)
                  : t.dot(mTile, t.roundTo(vb, vType), t.zeros({bt, bv}),
                          tile::Precision::tf32);
      storeRows(uTile, vType, u, col, vDim);
    }
  }
};

/// The tile width for a feature dimension of `dim` columns.
int64_t columnTile(int64_t dim) {
  return std::min<int64_t>(kMaxColumnTile,
                           llvm::PowerOf2Ceil(static_cast<uint64_t>(dim)));
}

} // namespace

LogicalResult kda::lowerWYRecompute(WYRecomputeOp op, StageContext &ctx) {
  Location loc = op.getLoc();
  auto kType = cast<RankedTensorType>(op.getK().getType());
  auto vType = cast<RankedTensorType>(op.getV().getType());
  const int64_t h = kType.getDimSize(2), k = kType.getDimSize(3);
  const int64_t hv = vType.getDimSize(2), v = vType.getDimSize(3);
  const int64_t bt = op.getChunkSize();
  if (ShapedType::isDynamic(k) || ShapedType::isDynamic(v))
    return op.emitOpError("has no lowering for dynamic feature dimensions "
                          "(K and V must be static)");

  // Manifest names and key.
  ctx.describe(op.getK(), "k", {"B", "T", "H", "K"});
  ctx.describe(op.getV(), "v", {"B", "T", "HV", "V"});
  ctx.describe(op.getG(), "G", {"B", "T", "HV", "K"});
  ctx.describe(op.getBeta(), "beta", {"B", "T", "HV"});
  ctx.describe(op.getM(), "M", {"B", "T", "HV", "BT"});
  ctx.describe(op.getW(), "w", {"B", "T", "HV", "K"});
  ctx.describe(op.getU(), "u", {"B", "T", "HV", "V"});
  ctx.describe(op.getKg(), "kg", {"B", "T", "HV", "K"});
  if (op.getCuSeqlens())
    ctx.describe(op.getCuSeqlens(), "cu_seqlens", {"N1"});
  ctx.addKey("K", std::to_string(k));
  ctx.addKey("V", std::to_string(v));
  addDimKey(ctx, "H", h);
  addDimKey(ctx, "HV", hv);
  ctx.addKey("chunk", std::to_string(bt));
  ctx.addKey("varlen", op.getCuSeqlens() ? "1" : "0");

  // Kernel arguments: k, v, G, beta, M, w, u, kg, [cu_seqlens].
  SmallVector<Value> args;
  for (Value input :
       {op.getK(), op.getV(), op.getG(), op.getBeta(), op.getM()})
    args.push_back(ctx.buffers.lookup(input));
  Value wBuf = ctx.allocateResult(op.getW());
  Value uBuf = ctx.allocateResult(op.getU());
  Value kgBuf = ctx.allocateResult(op.getKg());
  args.append({wBuf, uBuf, kgBuf});
  Value cuBuf = appendCuSeqlens(ctx, op.getCuSeqlens(), args);

  ChunkKernel chunkKernel =
      createChunkKernel(ctx, loc, args, kWYThreads, bool(cuBuf), bt);
  func::FuncOp kernel = chunkKernel.kernel;
  kernel->setAttr(tile::TileDialect::getMaxRegistersAttrName(),
                  Builder(kernel.getContext()).getI64IntegerAttr(kWYRegisters));
  OpBuilder &b = chunkKernel.builder;
  auto arg = [&](unsigned i) { return chunkKernel.arg(i); };

  WYRecomputeKernel body{TileValueBuilder{b, loc}};
  body.k = arg(0);
  body.v = arg(1);
  body.G = arg(2);
  body.beta = arg(3);
  body.m = arg(4);
  body.w = arg(5);
  body.u = arg(6);
  body.kg = arg(7);
  setChunkCoordinates(body, chunkKernel.program);
  body.kDim = k;
  body.vDim = v;
  body.bk = columnTile(k);
  body.bv = columnTile(v);
  body.bt = bt;
  body.kType = kType.getElementType();
  body.vType = vType.getElementType();
  body.build();

  // Host: NT * B * HV programs along x.
  launchChunkKernel(ctx, loc, kernel, args, cuBuf, bt);
  ctx.buffers.map(op.getW(), wBuf);
  ctx.buffers.map(op.getU(), uBuf);
  ctx.buffers.map(op.getKg(), kgBuf);
  return success();
}
