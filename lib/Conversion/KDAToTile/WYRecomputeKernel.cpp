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

#include "KernelArguments.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::kda;

/// Widest K or V tile of a program: [BT, 64] f32 tiles next to the
/// [BT, BT] block of M.
static constexpr int64_t kMaxColumnTile = 64;

namespace {

/// The body of one wy_recompute program.
struct WYRecomputeKernel : ChunkKernelBody {
  using ChunkKernelBody::ChunkKernelBody;

  // Arguments.
  Value k, v, G, beta, m, w, u, kg;
  // Static sizes: K, V, their tile widths BK and BV, the chunk size BT.
  int64_t kDim = 0, vDim = 0, bk = 0, bv = 0, bt = 0;
  /// Element types of k (also M, w and kg) and of v (also u).
  Type kType, vType;

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
    const bool narrowK = isSixteenBitFloat(kType);
    const bool narrowV = narrowK && vType == kType;
    Value mLoaded = t.load(t.tileOf({bt, bt}, kType), m,
                           {batch, rowStart, head, t.index(0)},
                           {rowEnd, rowsLeft}, {1, 3});
    Value lower = t.lowerMask(bt, 0);
    Value mNarrow = t.select(lower, mLoaded,
                             t.splat(t.tileOf({bt, bt}, kType), 0.0));
    Value mTile = narrowK && narrowV ? Value() : t.toF32(mNarrow);
    // M . rd(x) for an f32 tile `x` of `width` columns, rounded to
    // `element`; 16-bit M and rd(x) when `narrow`.
    auto timesM = [&](Value x, Type element, bool narrow, int64_t width) {
      return narrow ? t.dot(mNarrow, t.toElement(x, element),
                            t.zeros({bt, width}), tile::Precision::tf32)
                    : t.dot(mTile, t.roundTo(x, element), t.zeros({bt, width}),
                            tile::Precision::tf32);
    };
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
      storeRows(timesM(kb, kType, narrowK, bk), kType, w, col, kDim);
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
      storeRows(timesM(t.mul(vTile, betaRows), vType, narrowV, bv), vType, u,
                col, vDim);
    }
  }
};

} // namespace

LogicalResult kda::lowerStage(WYRecomputeOp op, StageContext &ctx) {
  FailureOr<ChunkStageKey> key = getColumnStageKey(
      op, op.getK(), op.getV(), op.getChunkSize(), op.getCuSeqlens());
  if (failed(key))
    return failure();

  // Kernel arguments: k, v, G, beta, M, w, u, kg, [cu_seqlens].
  KernelArguments args(ctx, op,
                       {{op.getK(), "k"},
                        {op.getV(), "v"},
                        {op.getG(), "G"},
                        {op.getBeta(), "beta"},
                        {op.getM(), "M"},
                        {op.getW(), "w"},
                        {op.getU(), "u"},
                        {op.getKg(), "kg"},
                        {op.getCuSeqlens(), "cu_seqlens"}});
  addChunkStageKey(ctx, *key);

  Location loc = op.getLoc();
  lowerChunkStage(ctx, loc, args, op.getCuSeqlens(), tuningOf(ctx, TunedKernel::wyRecompute), key->chunk,
                  [&](ChunkKernel &kernel) {
                    WYRecomputeKernel body(kernel, loc);
                    args.bind(kernel.kernel, body.k, body.v, body.G, body.beta,
                              body.m, body.w, body.u, body.kg);
                    body.kDim = key->k;
                    body.vDim = *key->v;
                    body.bk = columnTile(body.kDim, kMaxColumnTile);
                    body.bv = columnTile(body.vDim, kMaxColumnTile);
                    body.bt = key->chunk;
                    body.kType = getElementTypeOrSelf(op.getK().getType());
                    body.vType = getElementTypeOrSelf(op.getV().getType());
                    body.build();
                  });
  return success();
}
