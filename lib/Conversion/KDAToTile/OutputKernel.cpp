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

#include "KernelArguments.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::kda;

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
struct OutputKernel : ChunkKernelBody {
  using ChunkKernelBody::ChunkKernelBody;

  // Arguments.
  Value q, G, aqk, h, vNew, o;
  // Program coordinates besides the chunk's: `chunkId` indexes h's second
  // dimension, `vCol` is the first column of the program's V tile.
  Value chunkId, vCol;
  // Static sizes: K, V, their tile widths BK and BV, the chunk size BT.
  int64_t kDim = 0, vDim = 0, bk = 0, bv = 0, bt = 0;
  /// Element types of q (also Aqk and h) and of v_new (also o).
  Type qType, vType;
  float scale = 1.0f;
  /// True for state_layout vk (h is [.., V, K]).
  bool vFirst = false;

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
    return isSixteenBitFloat(qType) && vNewElem == qType;
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
    Value lower = t.lowerMask(bt, 0);
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

} // namespace

LogicalResult kda::lowerStage(OutputOp op, StageContext &ctx) {
  FailureOr<ChunkStageKey> key = getColumnStageKey(
      op, op.getQ(), op.getVNew(), op.getChunkSize(), op.getCuSeqlens());
  if (failed(key))
    return failure();
  Location loc = op.getLoc();
  const int64_t k = key->k, v = *key->v, bt = key->chunk;
  const bool vFirst = op.getStateLayout() == StateLayout::vk;

  // Kernel arguments: q, G, Aqk, h, v_new, o, [cu_seqlens]; NT (h's second
  // dimension) has its own symbol in the manifest.
  KernelArguments args(
      ctx, op,
      {{op.getQ(), "q"},
       {op.getG(), "G"},
       {op.getAqk(), "Aqk"},
       {op.getH(), "h", getChunkStateDims(op.getStateLayout())},
       {op.getVNew(), "v_new"},
       {op.getO(), "o"},
       {op.getCuSeqlens(), "cu_seqlens"}});
  addChunkStageKey(ctx, *key);
  addFloatKey(ctx, "scale", op.getScale().convertToFloat());
  ctx.addKey("state_layout", stringifyStateLayout(op.getStateLayout()));
  // 16-bit I/O: 128 value columns per program, whose accumulator stays in
  // registers; f32 I/O (tf32 dots through shared memory) keeps 64.
  Type qElem = getElementTypeOrSelf(op.getQ().getType());
  Type vElem = getElementTypeOrSelf(op.getVNew().getType());
  const bool sixteenBit = isSixteenBitFloat(qElem) && vElem == qElem;
  const int64_t bk = columnTile(k, kMaxKTile);
  const int64_t bv = columnTile(v, sixteenBit ? kMaxVTile : kMaxKTile);
  const int64_t numVTiles = (v + bv - 1) / bv;

  const bool registerDots =
      sixteenBit && llvm::divideCeil(k, bk) <= kMaxUnrolledKTiles;
  func::FuncOp kernel =
      args.createKernel(tuningOf(
          ctx, registerDots ? TunedKernel::outputRegisterDots : TunedKernel::output));
  OpBuilder b = kernelBuilder(kernel);
  Value qArg = kernel.getArgument(0), gArg = kernel.getArgument(1);
  Value cu = args.argument(kernel, 6);

  // One flat grid axis: program = (bh * NT + chunk) * NV + V tile.
  Value numChunks = countChunks(b, loc, gArg, cu, bt);
  Value pid = tile::ProgramIdOp::create(b, loc, tile::Axis::x);
  Value cNV = arith::ConstantIndexOp::create(b, loc, numVTiles);
  Value vTile = arith::RemUIOp::create(b, loc, pid, cNV);
  Value pidTBH = arith::DivUIOp::create(b, loc, pid, cNV);
  Value pidT = arith::RemUIOp::create(b, loc, pidTBH, numChunks);
  Value pidBH = arith::DivUIOp::create(b, loc, pidTBH, numChunks);
  Value cHV = headCount(b, loc, gArg);
  ChunkProgram program;
  program.batch = arith::DivUIOp::create(b, loc, pidBH, cHV);
  program.head = arith::RemUIOp::create(b, loc, pidBH, cHV);
  // Grouped value heads: value head hv reads q head hv / (HV / H).
  program.qkHead = arith::DivUIOp::create(
      b, loc, program.head,
      arith::DivUIOp::create(b, loc, cHV, headCount(b, loc, qArg)));
  Value vCol = arith::MulIOp::create(
      b, loc, vTile, arith::ConstantIndexOp::create(b, loc, bv));

  // The chunk's rows and its index along h's second dimension.
  program.rows = locateChunk(b, loc, pidT, gArg, cu, bt);
  auto ifValid = scf::IfOp::create(b, loc, program.rows.valid, false);
  b.setInsertionPointToStart(&ifValid.getThenRegion().front());
  Value chunkId = pidT;
  if (cu)
    chunkId = arith::AddIOp::create(
        b, loc, chunkOffset(b, loc, cu, program.rows.sequence, bt),
        program.rows.sequenceChunk);

  OutputKernel body(b, loc, program);
  args.bind(kernel, body.q, body.G, body.aqk, body.h, body.vNew, body.o);
  body.chunkId = chunkId;
  body.vCol = vCol;
  body.kDim = k;
  body.vDim = v;
  body.bk = bk;
  body.bv = bv;
  body.bt = bt;
  body.qType = qElem;
  body.vType = vElem;
  body.scale = op.getScale().convertToFloat();
  body.vFirst = vFirst;
  body.build();

  // Host: NV * NT * B * HV programs along x.
  launchOverChunks(ctx, loc, kernel, args.buffers(), args.buffers()[1],
                   args.bufferOf(op.getCuSeqlens()), bt,
                   [&](OpBuilder &hb, Value chunks, Value heads) -> Value {
                     return arith::MulIOp::create(
                         hb, loc, arith::MulIOp::create(hb, loc, chunks, heads),
                         arith::ConstantIndexOp::create(hb, loc, numVTiles));
                   });
  args.mapResults();
  return success();
}
