//===- OutputKernel.cpp - kda.output as a tile kernel ---------------------===//
//
// fla's chunk_gla_fwd_kernel_o: one program per (V tile of 128 columns,
// 64 with f32 I/O; chunk; batch * value head), numbered along the grid's x
// axis (V tile fastest). With the
// chunk's state h_c (h at the chunk's global id: the chunk index for fixed
// length, chunk_offsets[n] + c for varlen, as fla and the reference number
// h), each program computes, for its BV columns of V,
//
//   o = scale * (rd(q * 2^G) . h_c) + tril0(Aqk) . v_new
//
// With 16-bit I/O and at most two K tiles of BK columns (K <= 128), every
// operand is computed first and the dots then run one after the other into
// one zero-filled accumulator (which the GPU lowering keeps in registers
// and converts on its way to o):
//
//   acc = rd(scale * q * 2^G)[:, K tile 0] . h_c[K tile 0, :]  (+ tile 1)
//       + tril0(Aqk) . v_new
//
// with the scale folded into the query before its rounding. With more K
// tiles (K up to 256) or f32 I/O,
//
//  1. the inter-chunk term accumulates over K tiles (an scf.for carrying
//     the [BT, BV] accumulator);
//  2. the accumulator is scaled by `scale` (Aqk already contains it);
//  3. the intra-chunk term is added.
//
// h is read as [BK, BV] tiles (state_layout kv) or as [BV, BK] tiles
// transposed (vk); Aqk is masked to its lower triangle, diagonal included,
// so that unwritten entries above it never count.
//
// rd() rounds to q's dtype, as fla does before its bf16 GEMM (fla scales
// after the GEMM: the two differ by one rounding of the scaled product).
// The dots run at tf32: every operand is an I/O-dtype value (rd(q * 2^G),
// h, Aqk, v_new), which f16 and bf16 represent exactly in tf32, so for those dtypes
// the products are exact and the dots equal fla's bf16/f16 GEMMs with f32
// accumulation; for f32 I/O tf32 is fla's default fp32 tl.dot precision.
// Accumulation is f32 and o is cast to v_new's dtype; rows past the
// sequence end read as 0 and are never stored.
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

/// Threads per output program on the GPU (4 warps).
static constexpr int64_t kOutputThreads = 128;

/// Bytes of tiles the output program's loads may keep live by moving up.
static constexpr int64_t kOutputLiveTileBytes = 64 * 1024;

/// Up to this many K tiles, a program's 16-bit dots run unrolled into one
/// accumulator (kept in registers on the GPU); more, or f32 dots, run in
/// an scf.for.
static constexpr int64_t kMaxUnrolledKTiles = 2;

/// Widest K tile of a program ([BT, 64] q and G tiles, [64, BV] h tiles).
static constexpr int64_t kMaxKTile = 64;

/// Widest V tile of a program with 16-bit I/O: one program covers V up to
/// 128 (its [BT, 128] accumulator fits in the registers of 4 warps), so q
/// and G are read and scaled once per chunk rather than once per V tile.
/// With f32 I/O the V tile is as wide as the K tile (its f32 tiles would
/// not leave room for a second block per SM).
static constexpr int64_t kMaxVTile = 128;

namespace {

/// The body of one output program.
struct OutputKernel {
  TileValueBuilder t;
  // Arguments.
  Value q, G, aqk, h, vNew, o;
  // Program coordinates: `chunkId` indexes h's second dimension, `vCol` is
  // the first column of the program's V tile.
  Value batch, head, qkHead, rowStart, rowEnd, chunkId, vCol;
  // Static sizes: K, V, their tile widths BK and BV, the chunk size BT.
  int64_t kDim = 0, vDim = 0, bk = 0, bv = 0, bt = 0;
  /// Element types of q (also Aqk and h) and of v_new (also o).
  Type qType, vType;
  float scale = 1.0f;
  /// True for state_layout vk (h is [.., V, K]).
  bool vFirst = false;

  OpBuilder &b() { return t.b; }
  Location loc() { return t.loc; }

  /// The [BT, width] f32 tile of the chunk's rows and columns [col, col +
  /// width) of a [B, T, heads, dim] buffer at head `hd`; rows past the
  /// sequence end and columns >= dim read as 0.
  Value loadRows(Value source, Value hd, Value col, int64_t width,
                 int64_t dim) {
    return t.toF32(loadRowsAsStored(source, hd, col, width, dim));
  }

  /// The same tile in `source`'s element type.
  Value loadRowsAsStored(Value source, Value hd, Value col, int64_t width,
                         int64_t dim) {
    auto elem = cast<MemRefType>(source.getType()).getElementType();
    return t.load(t.tileOf({bt, width}, elem), source,
                  {batch, rowStart, hd, col}, {rowEnd, t.index(dim)}, {1, 3});
  }

  /// True when both dots can take 16-bit operands as they are (bf16 or f16
  /// q and v of one type): their products are exact in f32, the values
  /// are already rounded to that type, so the result equals the tf32 dot
  /// of the f32 tiles, with half the shared memory and no conversions.
  bool sixteenBitDots() const {
    auto vNewElem = cast<MemRefType>(vNew.getType()).getElementType();
    return (qType.isBF16() || qType.isF16()) && vNewElem == qType;
  }

  /// The [BK, BV] tile of h_c at rows [kCol, ..) of K and the program's V
  /// columns, in h's element type (f32 unless `sixteenBitDots`); entries
  /// past K or V read as 0.
  Value loadState(Value kCol) {
    Value tile;
    if (!vFirst) {
      tile = t.load(t.tileOf({bk, bv}, qType), h,
                    {batch, chunkId, head, kCol, vCol},
                    {t.index(kDim), t.index(vDim)}, {3, 4});
    } else {
      Value vk = t.load(t.tileOf({bv, bk}, qType), h,
                        {batch, chunkId, head, vCol, kCol},
                        {t.index(vDim), t.index(kDim)}, {3, 4});
      tile = t.trans(vk);
    }
    return sixteenBitDots() ? tile : t.toF32(tile);
  }

  /// rd(q * 2^G) for the K tile at `kCol`, times `factor` before the
  /// rounding when it is not 1.
  Value gatedQuery(Value kCol, float factor) {
    Value qg = t.mul(loadRows(q, qkHead, kCol, bk, kDim),
                     t.exp2(loadRows(G, head, kCol, bk, kDim)));
    if (factor != 1.0f)
      qg = t.mul(qg, t.splat(t.tileOf({bt, bk}, t.f32()), factor));
    return sixteenBitDots() ? t.toElement(qg, qType) : t.roundTo(qg, qType);
  }

  /// tril0(Aqk) and the program's v_new tile, as the second dot takes them.
  std::pair<Value, Value> intraOperands() {
    Value aqkTile = t.load(t.tileOf({bt, bt}, qType), aqk,
                           {batch, rowStart, head, t.index(0)},
                           {rowEnd, t.index(bt)}, {1, 3});
    Value lower = tile::TriMaskOp::create(
        b(), loc(), t.tileOf({bt, bt}, b().getI1Type()), /*upper=*/false,
        /*diagonal=*/0);
    if (sixteenBitDots())
      return {t.select(lower, aqkTile,
                       t.splat(t.tileOf({bt, bt}, qType), 0.0)),
              loadRowsAsStored(vNew, head, vCol, bv, vDim)};
    return {t.select(lower, t.toF32(aqkTile), t.zeros({bt, bt})),
            loadRows(vNew, head, vCol, bv, vDim)};
  }

  void build() {
    int64_t numKTiles = llvm::divideCeil(kDim, bk);
    Value out;
    if (sixteenBitDots() && numKTiles <= kMaxUnrolledKTiles) {
      // Every operand first, then the dots one after the other into one
      // zero-filled accumulator: the GPU lowering keeps that accumulator in
      // registers through all of them and converts it on the way to o. The
      // scale goes into rd(q * 2^G) (one rounding of the scaled product).
      SmallVector<Value> queries, states;
      for (int64_t i = 0; i < numKTiles; ++i) {
        queries.push_back(gatedQuery(t.index(i * bk), scale));
        states.push_back(loadState(t.index(i * bk)));
      }
      auto [causal, vTile] = intraOperands();
      out = t.zeros({bt, bv});
      for (int64_t i = 0; i < numKTiles; ++i)
        out = t.dot(queries[i], states[i], out, tile::Precision::tf32);
      out = t.dot(causal, vTile, out, tile::Precision::tf32);
    } else {
      // 1. rd(q * 2^G) . h_c, over K tiles.
      auto kLoop =
          scf::ForOp::create(b(), loc(), t.index(0), t.index(kDim),
                             t.index(bk), ValueRange{t.zeros({bt, bv})});
      {
        OpBuilder::InsertionGuard guard(b());
        b().setInsertionPointToStart(kLoop.getBody());
        Value kCol = kLoop.getInductionVar();
        Value acc = t.dot(gatedQuery(kCol, 1.0f), loadState(kCol),
                          kLoop.getRegionIterArg(0), tile::Precision::tf32);
        scf::YieldOp::create(b(), loc(), acc);
      }
      // 2. Aqk already holds the scale; the inter term gets it here.
      Value inter = t.mul(kLoop.getResult(0),
                          t.splat(t.tileOf({bt, bv}, t.f32()), scale));
      // 3. + tril0(Aqk) . v_new.
      auto [causal, vTile] = intraOperands();
      out = t.dot(causal, vTile, inter, tile::Precision::tf32);
    }
    t.store(t.toElement(out, vType), o, {batch, rowStart, head, vCol},
            {rowEnd, t.index(vDim)}, {1, 3});
  }
};

/// The tile width for a feature dimension of `dim` columns, at most `max`.
int64_t columnTile(int64_t dim, int64_t max) {
  return std::min<int64_t>(max,
                           llvm::PowerOf2Ceil(static_cast<uint64_t>(dim)));
}

/// chunk_offsets[seq] = sum over m < seq of ceil((cu[m+1] - cu[m]) / BT):
/// the global id of the first chunk of sequence `seq`.
Value chunkOffset(OpBuilder &b, Location loc, Value cu, Value seq,
                  int64_t bt) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, c0, seq, c1, ValueRange{c0});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value m = loop.getInductionVar();
  auto offsetAt = [&](Value i) -> Value {
    Value v = memref::LoadOp::create(b, loc, cu, ValueRange{i});
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  };
  Value begin = offsetAt(m);
  Value end = offsetAt(arith::AddIOp::create(b, loc, m, c1));
  Value chunks =
      ceilDiv(b, loc, arith::SubIOp::create(b, loc, end, begin), bt);
  scf::YieldOp::create(
      b, loc, ValueRange{arith::AddIOp::create(b, loc, loop.getRegionIterArg(0),
                                               chunks)});
  return loop.getResult(0);
}

} // namespace

LogicalResult kda::lowerOutput(OutputOp op, StageContext &ctx) {
  Location loc = op.getLoc();
  auto qType = cast<RankedTensorType>(op.getQ().getType());
  auto vType = cast<RankedTensorType>(op.getVNew().getType());
  const int64_t h = qType.getDimSize(2), k = qType.getDimSize(3);
  const int64_t hv = vType.getDimSize(2), v = vType.getDimSize(3);
  const int64_t bt = op.getChunkSize();
  if (ShapedType::isDynamic(k) || ShapedType::isDynamic(v))
    return op.emitOpError("has no lowering for dynamic feature dimensions "
                          "(K and V must be static)");
  const bool vFirst = op.getStateLayout() == StateLayout::vk;

  // Manifest names and key; NT (h's second dimension) has its own symbol.
  ctx.describe(op.getQ(), "q", {"B", "T", "H", "K"});
  ctx.describe(op.getG(), "G", {"B", "T", "HV", "K"});
  ctx.describe(op.getAqk(), "Aqk", {"B", "T", "HV", "BT"});
  if (vFirst)
    ctx.describe(op.getH(), "h", {"B", "NT", "HV", "V", "K"});
  else
    ctx.describe(op.getH(), "h", {"B", "NT", "HV", "K", "V"});
  ctx.describe(op.getVNew(), "v_new", {"B", "T", "HV", "V"});
  ctx.describe(op.getO(), "o", {"B", "T", "HV", "V"});
  if (op.getCuSeqlens())
    ctx.describe(op.getCuSeqlens(), "cu_seqlens", {"N1"});
  char scaleText[32];
  std::snprintf(scaleText, sizeof(scaleText), "%.9g",
                op.getScale().convertToFloat());
  ctx.addKey("K", std::to_string(k));
  ctx.addKey("V", std::to_string(v));
  addDimKey(ctx, "H", h);
  addDimKey(ctx, "HV", hv);
  ctx.addKey("chunk", std::to_string(bt));
  ctx.addKey("scale", scaleText);
  ctx.addKey("state_layout", vFirst ? "vk" : "kv");
  ctx.addKey("varlen", op.getCuSeqlens() ? "1" : "0");

  // Kernel arguments: q, G, Aqk, h, v_new, o, [cu_seqlens].
  SmallVector<Value> args;
  for (Value input :
       {op.getQ(), op.getG(), op.getAqk(), op.getH(), op.getVNew()})
    args.push_back(ctx.buffers.lookup(input));
  Value oBuf = ctx.allocateResult(op.getO());
  args.push_back(oBuf);
  Value cuBuf = appendCuSeqlens(ctx, op.getCuSeqlens(), args);
  // 16-bit I/O: 128 value columns per program, whose accumulator stays in
  // registers; f32 I/O (tf32 dots through shared memory) keeps 64.
  Type qElem = qType.getElementType();
  const bool sixteenBit =
      (qElem.isBF16() || qElem.isF16()) && vType.getElementType() == qElem;
  const int64_t bk = columnTile(k, kMaxKTile);
  const int64_t bv = columnTile(v, sixteenBit ? kMaxVTile : kMaxKTile);
  const int64_t numVTiles = (v + bv - 1) / bv;

  func::FuncOp kernel =
      createKernel(ctx.module, ctx.kernelPrefix, ValueRange(args).getTypes(),
                   kOutputThreads);
  // With every dot in registers, the loaded tiles are what the program's
  // shared memory holds: the later loads wait for the first compute rather
  // than hold all six tiles at once (3 blocks per SM instead of 2).
  if (sixteenBit && llvm::divideCeil(k, bk) <= kMaxUnrolledKTiles)
    kernel->setAttr(tile::TileDialect::getMaxLiveBytesAttrName(),
                    Builder(kernel.getContext())
                        .getI64IntegerAttr(kOutputLiveTileBytes));
  OpBuilder b(kernel.getBody().front().getTerminator());
  Block &entry = kernel.getBody().front();
  auto arg = [&](unsigned i) { return entry.getArgument(i); };
  Value cu = cuBuf ? arg(6) : Value();

  // One flat grid axis: program = (bh * NT + chunk) * NV + V tile.
  Value numChunks = countChunks(b, loc, arg(1), cu, bt);
  Value pid = tile::ProgramIdOp::create(b, loc, tile::Axis::x);
  Value cNV = arith::ConstantIndexOp::create(b, loc, numVTiles);
  Value vTile = arith::RemUIOp::create(b, loc, pid, cNV);
  Value pidTBH = arith::DivUIOp::create(b, loc, pid, cNV);
  Value pidT = arith::RemUIOp::create(b, loc, pidTBH, numChunks);
  Value pidBH = arith::DivUIOp::create(b, loc, pidTBH, numChunks);
  Value cHV = headCount(b, loc, arg(1));
  Value batch = arith::DivUIOp::create(b, loc, pidBH, cHV);
  Value head = arith::RemUIOp::create(b, loc, pidBH, cHV);
  // Grouped value heads: value head hv reads q head hv / (HV / H).
  Value qkHead = arith::DivUIOp::create(
      b, loc, head,
      arith::DivUIOp::create(b, loc, cHV, headCount(b, loc, arg(0))));
  Value vCol = arith::MulIOp::create(
      b, loc, vTile, arith::ConstantIndexOp::create(b, loc, bv));

  // The chunk's rows and its index along h's second dimension.
  ChunkRows rows;
  Value chunkId;
  if (cu) {
    Value cBT = arith::ConstantIndexOp::create(b, loc, bt);
    auto chunk = tile::VarlenChunkOp::create(b, loc, cu, pidT, bt);
    rows.start = arith::AddIOp::create(
        b, loc, chunk.getBos(),
        arith::MulIOp::create(b, loc, chunk.getChunk(), cBT));
    rows.end = arith::AddIOp::create(b, loc, chunk.getBos(), chunk.getLength());
    rows.valid = chunk.getValid();
    auto ifValid = scf::IfOp::create(b, loc, rows.valid, false);
    b.setInsertionPointToStart(&ifValid.getThenRegion().front());
    chunkId = arith::AddIOp::create(
        b, loc, chunkOffset(b, loc, cu, chunk.getSequence(), bt),
        chunk.getChunk());
  } else {
    rows = locateChunk(b, loc, pidT, arg(1), cu, bt);
    chunkId = pidT;
    auto ifValid = scf::IfOp::create(b, loc, rows.valid, false);
    b.setInsertionPointToStart(&ifValid.getThenRegion().front());
  }

  OutputKernel body{TileValueBuilder{b, loc}};
  body.q = arg(0);
  body.G = arg(1);
  body.aqk = arg(2);
  body.h = arg(3);
  body.vNew = arg(4);
  body.o = arg(5);
  body.batch = batch;
  body.head = head;
  body.qkHead = qkHead;
  body.rowStart = rows.start;
  body.rowEnd = rows.end;
  body.chunkId = chunkId;
  body.vCol = vCol;
  body.kDim = k;
  body.vDim = v;
  body.bk = bk;
  body.bv = bv;
  body.bt = bt;
  body.qType = qType.getElementType();
  body.vType = vType.getElementType();
  body.scale = op.getScale().convertToFloat();
  body.vFirst = vFirst;
  body.build();

  // Host: NV * NT * B * HV programs along x.
  OpBuilder &hb = ctx.host;
  Value hostC1 = arith::ConstantIndexOp::create(hb, loc, 1);
  Value chunks = countChunks(hb, loc, args[1], cuBuf, bt);
  Value heads = batchHeads(hb, loc, args[1]);
  Value gridX = arith::MulIOp::create(
      hb, loc, arith::MulIOp::create(hb, loc, chunks, heads),
      arith::ConstantIndexOp::create(hb, loc, numVTiles));
  tile::LaunchOp::create(hb, loc, kernel.getSymName(), gridX, hostC1, hostC1,
                         args);
  ctx.buffers.map(op.getO(), oBuf);
  return success();
}
