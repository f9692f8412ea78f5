//===- DecayApplyKernel.cpp - kda.decay_apply as a tile kernel ------------===//
//
// The token-parallel half of the recurrent form (kda-fuse-recurrence): one
// program per (chunk, batch * value head), numbered along the grid's x axis
// like the other per-chunk stages, so that kda-fuse-tile-launches can run it
// in the same kernel as the diagonal blocks and the solve. For every K tile
// of BK columns the program loads q and k (at its q/k head) and G (at its
// value head), and G at the chunk's last valid row, and stores
//
//  - qg = rd(scale * q * 2^G),
//  - kd = rd(k * 2^G),
//  - kg = rd(k * 2^(G_last - G)) (as kda.wy_recompute),
//  - decay_last = 2^G_last, at the program's chunk slot (its chunk program
//    index): the recurrence multiplies the state's rows by it in every
//    step, so the exponentials are taken here, once per chunk;
//
// rd() rounding to q's element type. Rows past the sequence end read as 0
// and are never stored.
//
//===----------------------------------------------------------------------===//

#include "KernelArguments.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::kda;

/// Widest K tile of a program: three [BT, 64] f32 products live at once.
static constexpr int64_t kMaxColumnTile = 64;

namespace {

/// The body of one decay_apply program.
struct DecayApplyKernel : ChunkKernelBody {
  using ChunkKernelBody::ChunkKernelBody;

  // Arguments.
  Value q, k, G, qg, kd, kg, decayLastOut;
  // Static sizes: K, its tile width BK, the chunk size BT.
  int64_t kDim = 0, bk = 0, bt = 0;
  /// Element type of q, k and the results.
  Type ioType;
  float scale = 1.0f;

  /// The [BT, BK] f32 tile of the chunk's rows and columns [col, col + BK)
  /// of a [B, T, heads, K] buffer at head `h`; rows past the sequence end
  /// and columns >= K read as 0.
  Value loadRows(Value source, Value h, Value col) {
    auto elem = cast<MemRefType>(source.getType()).getElementType();
    return t.toF32(t.load(t.tileOf({bt, bk}, elem), source,
                          {batch, rowStart, h, col}, {rowEnd, t.index(kDim)},
                          {1, 3}));
  }
  /// Stores the f32 tile `value`, rounded to the I/O type, at the chunk's
  /// rows and columns [col, col + BK) of a [B, T, HV, K] result.
  void storeRows(Value value, Value dest, Value col) {
    t.store(t.toElement(value, ioType), dest, {batch, rowStart, head, col},
            {rowEnd, t.index(kDim)}, {1, 3});
  }

  void build() {
    Value lastRow = t.subIndex(
        t.minIndex(t.addIndex(rowStart, t.index(bt)), rowEnd), t.index(1));
    auto loop = scf::ForOp::create(b(), loc(), t.index(0), t.index(kDim),
                                   t.index(bk));
    OpBuilder::InsertionGuard guard(b());
    b().setInsertionPointToStart(loop.getBody());
    Value col = loop.getInductionVar();
    Value gTile = loadRows(G, head, col);
    Value growth = t.exp2(gTile);
    Value qTile = loadRows(q, qkHead, col);
    Value kTile = loadRows(k, qkHead, col);
    Value scaled = t.mul(qTile, t.splat(t.tileOf({bt, bk}, t.f32()), scale));
    storeRows(t.mul(scaled, growth), qg, col);
    storeRows(t.mul(kTile, growth), kd, col);
    // The exponent G_last - G is <= 0 on valid rows (G does not increase
    // along a chunk); padded rows have k = 0.
    Value gLast = t.load(t.tileOf({bk}, t.f32()), G,
                         {batch, lastRow, head, col}, {t.index(kDim)}, {3});
    Value decay = t.exp2(t.sub(t.broadcast(gLast, 0, {bt, bk}), gTile));
    storeRows(t.mul(kTile, decay), kg, col);
    t.store(t.exp2(gLast), decayLastOut, {batch, chunk, head, col},
            {t.index(kDim)}, {3});
  }
};

} // namespace

LogicalResult kda::lowerStage(DecayApplyOp op, StageContext &ctx) {
  auto qType = cast<RankedTensorType>(op.getQ().getType());
  auto gType = cast<RankedTensorType>(op.getG().getType());
  // The verifier guarantees a static K.
  ChunkStageKey key{qType.getDimSize(3),
                    std::nullopt,
                    qType.getDimSize(2),
                    gType.getDimSize(2),
                    static_cast<int64_t>(op.getChunkSize()),
                    op.getCuSeqlens()};

  // Kernel arguments: q, k, G, qg, kd, kg, decay_last, [cu_seqlens].
  KernelArguments args(ctx, op,
                       {{op.getQ(), "q"},
                        {op.getK(), "k"},
                        {op.getG(), "G"},
                        {op.getQg(), "qg"},
                        {op.getKd(), "kd"},
                        {op.getKg(), "kg"},
                        {op.getDecayLast(), "decay_last"},
                        {op.getCuSeqlens(), "cu_seqlens"}});
  addChunkStageKey(ctx, key);
  addFloatKey(ctx, "scale", op.getScale().convertToFloat());

  Location loc = op.getLoc();
  lowerChunkStage(ctx, loc, args, op.getCuSeqlens(),
                  tuningOf(ctx, TunedKernel::decayApply), key.chunk,
                  [&](ChunkKernel &kernel) {
                    DecayApplyKernel body(kernel, loc);
                    args.bind(kernel.kernel, body.q, body.k, body.G, body.qg,
                              body.kd, body.kg, body.decayLastOut);
                    body.kDim = key.k;
                    body.bk = columnTile(key.k, kMaxColumnTile);
                    body.bt = key.chunk;
                    body.ioType = qType.getElementType();
                    body.scale = op.getScale().convertToFloat();
                    body.build();
                  });
  return success();
}
