//===- StateScanKernel.cpp - kda.state_scan as a tile kernel --------------===//
//
// The inter-chunk state recurrence (fla's chunk_gated_delta_rule_fwd_h): one
// program per (V tile of BV columns, sequence * value head), numbered along
// the grid's x axis. Each program owns the columns [v0, v0 + BV) of the
// state S of one (sequence, value head), held as f32 tiles of [BK, BV]
// (rows [BK i, BK i + BK) of K; one tile of BK = 64 or 128 rows up to
// K = 128, ceil(K / 64) tiles of 64 rows above), and walks its sequence's
// chunks in order in an scf.for that carries those tiles:
//
//  1. h[slot] = rd(S), where slot is the global chunk id (the chunk index
//     for fixed length; chunk_offsets[n] + c for varlen, with chunk_offsets
//     summed over the earlier sequences of cu_seqlens);
//  2. Vn = u_c - w_c . rd(S) (dot operands in the dtype of kg/w, f32
//     accumulation over the K tiles); v_new_c = rd(Vn);
//  3. S = diag(2^G_last) . S + kg_c^T . rd(Vn), where G_last is G at the
//     chunk's last valid row.
//
// S starts as initial_state (or 0) and is stored to final_state (f32) after
// the last chunk; a sequence without tokens runs no chunk, so its final
// state is its initial state and it owns no h slot. Rows past the sequence
// end read as 0 (so they add nothing to S) and are never stored; rows of K
// and columns of V past their sizes read as 0 and are never stored. With
// state_layout vk the states are [.., V, K]: tiles are transposed after
// loading and before storing.
//
// kda.state_scan_output is the same scan with each chunk's output computed
// from the state between steps 2 and 3 (no h or v_new stored), and
// kda.chunk_recurrence the recurrent form (kda-fuse-recurrence): step 2
// becomes v_new = rd(tril(M_c) . rd(beta_c * (v_c - kd_c . rd(S)))), the
// output o_c = qg_c . rd(S) + tril(Aqk_c) . v_new follows it, and step 3
// takes kg_c as before and 2^G_last from decay_apply's decay_last (slot: the
// chunk index, or floor(cu[n] / BT) + n + c for varlen, the chunk program
// that wrote it). With the tuning's transpose_state the recurrent form holds
// S^T ([BV, BK] tiles) and computes each product transposed
// (buildTransposedRecurrentChunk).
//
//===----------------------------------------------------------------------===//

#include "KernelArguments.h"

#include "kda/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::kda;

/// Rows of K per state tile: the whole state in one [64, BV] or [128, BV]
/// tile up to K = 128, else tiles of 64 rows. At B=1, T=8192, H=HV=96,
/// K=V=128 on an H200, one [128, 32] tile ran 681 -> 602 us against two of
/// [64, 32] (one dot per product and per chunk instead of two).
static int64_t stateTileRows(int64_t k) {
  if (k <= 64)
    return 64;
  return k <= 128 ? 128 : 64;
}

/// Columns of V per program, unless the kernel tuning's block_v says
/// otherwise. 16 (twice the programs) ran 876 us and 64 (with 8 warps) 702
/// us against 602 at the shape above.
static constexpr int64_t kDefaultBV = 32;

namespace {

/// Everything the kernel body needs: arguments, program coordinates and
/// problem constants.
struct StateScanKernel {
  TileValueBuilder t;
  // Arguments (h0, ht and cu_seqlens may be null; h and v_new are null in
  // the fused kernels, q, Aqk and o in the plain one; w, u and q are null
  // and qg, kd, v, beta and M set in the recurrent form).
  Value kg, w, u, G, h0, h, vNew, ht, cu;
  Value q, aqk, o;
  Value qg, kd, v, beta, m, decayLast;
  // Program coordinates: the batch entry of the token rows, the sequence
  // (state slot), the value head, the q head it reads and the first V
  // column.
  Value batch, seq, head, qkHead, v0;
  // Static sizes.
  int64_t kDim = 0, vDim = 0, bt = 0, numKTiles = 0;
  /// Rows of K per state tile (stateTileRows).
  int64_t kBK = 64;
  /// Columns of V per program (the tuning's block_v, or kDefaultBV).
  int64_t kBV = kDefaultBV;
  bool vkLayout = false;
  /// The recurrent form's state held transposed, as [BV, BK] tiles (S^T):
  /// V rows along the dots' M, so that the state enters each chunk's dots
  /// as their A operand and the dot results that feed the next dot are A
  /// operands too (the kernel tuning's transpose_state).
  bool transposedState = false;
  /// Element type of kg, w and h (and of q and Aqk), and of u and v_new
  /// (and of o).
  Type ioType, vType;
  /// The output's scale (fused kernel).
  float scale = 1.0f;

  OpBuilder &b() { return t.b; }
  Location loc() { return t.loc; }
  bool fusedOutput() const { return static_cast<bool>(o); }
  bool recurrentForm() const { return static_cast<bool>(kd); }
  SmallVector<int64_t, 2> stateShape() {
    if (transposedState)
      return {kBV, kBK};
    return {kBK, kBV};
  }
  /// First K row of state tile `i`.
  Value kRow(int64_t i) { return t.index(i * kBK); }

  /// State tile `i` ([BK, BV] f32, rows of K; [BV, BK] with
  /// transposedState) of slot `slot` of the rank-4
  /// state `source` ([N, HV, K, V], or [N, HV, V, K] with vk); entries past
  /// K or V read as 0.
  Value loadState(Value source, Value slot, int64_t i) {
    if (!vkLayout) {
      Value kv = t.load(t.tileOf({kBK, kBV}, t.f32()), source,
                        {slot, head, kRow(i), v0}, {}, {2, 3});
      return transposedState ? t.trans(kv) : kv;
    }
    Value vk = t.load(t.tileOf({kBV, kBK}, t.f32()), source,
                      {slot, head, v0, kRow(i)}, {}, {2, 3});
    return transposedState ? vk : t.trans(vk);
  }

  /// Stores state tile `i` (`value`, [BK, BV], or [BV, BK] with
  /// transposedState) at `indices` (the leading
  /// slot indices) of `dest`, whose last two dimensions are K, V (or V, K
  /// with vk); entries past K or V are dropped.
  void storeState(Value value, Value dest, SmallVector<Value> indices,
                  int64_t i) {
    int64_t rank = cast<MemRefType>(dest.getType()).getRank();
    // The tile is [BK, BV], or [BV, BK] with transposedState.
    if (vkLayout != transposedState)
      value = t.trans(value);
    if (vkLayout)
      indices.append({v0, kRow(i)});
    else
      indices.append({kRow(i), v0});
    t.store(value, dest, indices, {}, {rank - 2, rank - 1});
  }

  /// The [BT, width] tile of rows [row, row + BT) and columns [col, col +
  /// width) of a [B, T, heads, D] buffer at head `hd`, in its element type;
  /// rows >= rowEnd and columns >= D read as 0.
  Value loadRows(Value source, Value hd, Value row, Value rowEnd, Value col,
                 int64_t width, int64_t d) {
    auto elem = cast<MemRefType>(source.getType()).getElementType();
    return t.load(t.tileOf({bt, width}, elem), source, {batch, row, hd, col},
                  {rowEnd, t.index(d)}, {1, 3});
  }
  Value loadRows(Value source, Value row, Value rowEnd, Value col,
                 int64_t width, int64_t d) {
    return loadRows(source, head, row, rowEnd, col, width, d);
  }

  /// True when the output's dots take 16-bit operands as they are (bf16 or
  /// f16 kg and u of one type), as kda.output's kernel decides.
  bool sixteenBitOutput() const {
    return isSixteenBitFloat(ioType) && vType == ioType;
  }

  /// The chunk's output, as kda.output computes it from h = `rounded` (the
  /// state tiles in the element type of kg) and v_new = `vnOut`:
  ///   o = scale * rd(q * 2^G) . rd(S) + tril0(Aqk) . v_new,
  /// with the scale folded into the query before its rounding for 16-bit
  /// operands and K <= 128 (kda.output's unrolled form), and applied to the
  /// inter-chunk term otherwise.
  void buildOutput(Value rowStart, Value rowEnd, ArrayRef<Value> rounded,
                   Value vnOut) {
    const bool sixteenBit = sixteenBitOutput();
    const bool foldScale = sixteenBit && kDim <= 128;
    // One K tile of rd(q * 2^G) at a time, each dotted right away: with K
    // above 128 (up to four tiles of 64) only one is live.
    Value out = t.zeros({bt, kBV});
    for (int64_t i = 0; i < numKTiles; ++i) {
      Value qg = t.mul(t.toF32(loadRows(q, qkHead, rowStart, rowEnd, kRow(i),
                                        kBK, kDim)),
                       t.exp2(loadRows(G, rowStart, rowEnd, kRow(i), kBK,
                                       kDim)));
      if (foldScale && scale != 1.0f)
        qg = t.mul(qg, t.splat(t.tileOf({bt, kBK}, t.f32()), scale));
      Value query = sixteenBit ? t.toElement(qg, ioType) : t.roundTo(qg, ioType);
      out = t.dot(query, sixteenBit ? rounded[i] : t.toF32(rounded[i]), out,
                  tile::Precision::tf32);
    }
    if (!foldScale)
      out = t.mul(out, t.splat(t.tileOf({bt, kBV}, t.f32()), scale));
    Value aqkTile = t.load(t.tileOf({bt, bt}, ioType), aqk,
                           {batch, rowStart, head, t.index(0)},
                           {rowEnd, t.index(bt)}, {1, 3});
    Value lower = t.lowerMask(bt, 0);
    Value causal =
        sixteenBit
            ? t.select(lower, aqkTile, t.splat(t.tileOf({bt, bt}, ioType), 0.0))
            : t.keep(lower, t.toF32(aqkTile));
    Value vTile = sixteenBit ? vnOut : t.toF32(vnOut);
    out = t.dot(causal, vTile, out, tile::Precision::tf32);
    t.store(t.toElement(out, vType), o, {batch, rowStart, head, v0},
            {rowEnd, t.index(vDim)}, {1, 3});
  }

  /// The chunk's [BT] f32 tile of beta (rows past `rowEnd` read as 0).
  Value loadBeta(Value rowStart, Value rowEnd) {
    auto element = cast<MemRefType>(beta.getType()).getElementType();
    return t.toF32(t.load(t.tileOf({bt}, element), beta,
                          {batch, rowStart, head}, {rowEnd}, {1}));
  }

  /// The chunk's [BT, BT] block of `source` (M or Aqk, in the I/O type),
  /// lower triangle and diagonal kept: rows and columns past the sequence
  /// end and entries above the diagonal are 0, whatever the buffer holds
  /// there. In f32 unless `narrow`.
  Value loadLowerBlock(Value source, Value rowStart, Value rowEnd,
                       bool narrow) {
    Value block = t.load(t.tileOf({bt, bt}, ioType), source,
                         {batch, rowStart, head, t.index(0)},
                         {rowEnd, t.subIndex(rowEnd, rowStart)}, {1, 3});
    Value lower = t.lowerMask(bt, 0);
    return narrow ? t.select(lower, block,
                             t.splat(t.tileOf({bt, bt}, ioType), 0.0))
                  : t.keep(lower, t.toF32(block));
  }

  /// The recurrent form's chunk of rows [rowStart, min(rowStart + BT,
  /// rowEnd)) (kda.chunk_recurrence): stores o and returns the new state
  /// tiles. The dots take 16-bit operands as they are when kd and v have
  /// one 16-bit type (`sixteenBitOutput`), f32 operands otherwise.
  SmallVector<Value> buildRecurrentChunk(Value rowStart, Value rowEnd,
                                         Value slot, ValueRange state) {
    const bool narrow = sixteenBitOutput();
    SmallVector<Value> rounded;
    for (Value s : state)
      rounded.push_back(t.toElement(s, ioType));
    auto operand = [&](Value tile) { return narrow ? tile : t.toF32(tile); };

    // 1. x = rd(beta * (v - kd . rd(S))), beta scaling rows.
    Value ks = t.zeros({bt, kBV});
    for (int64_t i = 0; i < numKTiles; ++i)
      ks = t.dot(loadRows(kd, rowStart, rowEnd, kRow(i), kBK, kDim),
                 rounded[i], ks, tile::Precision::ieee);
    Value vTile = t.toF32(loadRows(v, rowStart, rowEnd, v0, kBV, vDim));
    Value betaCol = loadBeta(rowStart, rowEnd);
    Value x = t.mul(t.sub(vTile, ks), t.broadcast(betaCol, 1, {bt, kBV}));
    Value xRounded = narrow ? t.toElement(x, vType) : t.roundTo(x, vType);

    // 2. v_new = rd(tril(M) . x).
    Value vn = t.dot(loadLowerBlock(m, rowStart, rowEnd, narrow), xRounded,
                     t.zeros({bt, kBV}), tile::Precision::tf32);
    Value vnOut = t.toElement(vn, vType);

    // 3. o = qg . rd(S) + tril(Aqk) . v_new.
    Value out = t.zeros({bt, kBV});
    for (int64_t i = 0; i < numKTiles; ++i)
      out = t.dot(operand(loadRows(qg, rowStart, rowEnd, kRow(i), kBK, kDim)),
                  operand(rounded[i]), out, tile::Precision::tf32);
    out = t.dot(loadLowerBlock(aqk, rowStart, rowEnd, narrow),
                operand(vnOut), out, tile::Precision::tf32);
    t.store(t.toElement(out, vType), o, {batch, rowStart, head, v0},
            {rowEnd, t.index(vDim)}, {1, 3});

    return updateState(rowStart, rowEnd, slot, state,
                       t.toElement(vn, ioType));
  }

  /// buildRecurrentChunk with the state transposed (transposedState): the
  /// same products, each transposed so that the state and every dot result
  /// that feeds a dot are A operands ([BV, *] tiles, V rows along M):
  ///   x^T = rd((v^T - rd(S^T) . kd^T) * beta), v_new^T = rd(x^T . tril(M)^T),
  ///   o^T = rd(S^T) . qg^T + v_new^T . tril(Aqk)^T,
  ///   S^T = S^T . diag(decay_last) + rd(v_new^T) . kg.
  SmallVector<Value> buildTransposedRecurrentChunk(Value rowStart,
                                                   Value rowEnd, Value slot,
                                                   ValueRange state) {
    const bool narrow = sixteenBitOutput();
    SmallVector<Value> rounded;
    for (Value s : state)
      rounded.push_back(t.toElement(s, ioType));
    auto operand = [&](Value tile) { return narrow ? tile : t.toF32(tile); };

    // 1. x^T = rd(beta * (v^T - rd(S^T) . kd^T)), beta scaling columns.
    Value ks = t.zeros({kBV, bt});
    for (int64_t i = 0; i < numKTiles; ++i)
      ks = t.dot(rounded[i],
                 t.trans(loadRows(kd, rowStart, rowEnd, kRow(i), kBK, kDim)),
                 ks, tile::Precision::ieee);
    Value vTile =
        t.trans(t.toF32(loadRows(v, rowStart, rowEnd, v0, kBV, vDim)));
    Value betaRow = loadBeta(rowStart, rowEnd);
    Value x = t.mul(t.sub(vTile, ks), t.broadcast(betaRow, 0, {kBV, bt}));
    Value xRounded = narrow ? t.toElement(x, vType) : t.roundTo(x, vType);

    // 2. v_new^T = rd(x^T . tril(M)^T).
    Value vn = t.dot(xRounded,
                     t.trans(loadLowerBlock(m, rowStart, rowEnd, narrow)),
                     t.zeros({kBV, bt}), tile::Precision::tf32);
    Value vnOut = t.toElement(vn, vType);

    // 3. o^T = rd(S^T) . qg^T + v_new^T . tril(Aqk)^T.
    Value out = t.zeros({kBV, bt});
    for (int64_t i = 0; i < numKTiles; ++i)
      out = t.dot(operand(rounded[i]),
                  operand(t.trans(
                      loadRows(qg, rowStart, rowEnd, kRow(i), kBK, kDim))),
                  out, tile::Precision::tf32);
    out = t.dot(operand(vnOut),
                t.trans(loadLowerBlock(aqk, rowStart, rowEnd, narrow)), out,
                tile::Precision::tf32);
    t.store(t.trans(t.toElement(out, vType)), o,
            {batch, rowStart, head, v0}, {rowEnd, t.index(vDim)}, {1, 3});

    // 4. S^T = S^T . diag(decay_last) + rd(v_new^T) . kg.
    Value vnIo = t.toElement(vn, ioType);
    SmallVector<Value> next;
    for (int64_t i = 0; i < numKTiles; ++i) {
      Value lastDecay = t.load(t.tileOf({kBK}, t.f32()), decayLast,
                               {batch, slot, head, kRow(i)}, {t.index(kDim)},
                               {3});
      Value decay = t.broadcast(lastDecay, 0, stateShape());
      Value kgi = loadRows(kg, rowStart, rowEnd, kRow(i), kBK, kDim);
      next.push_back(
          t.dot(vnIo, kgi, t.mul(state[i], decay), tile::Precision::ieee));
    }
    return next;
  }

  /// Step 3 of every form: S = diag(2^G_last) . S + kg^T . `vnIo` (v_new in
  /// kg's element type), G_last at the last valid row of the chunk: G's
  /// row, whose exp2 this takes, or in the recurrent form 2^G_last itself,
  /// slot `slot` of decay_last.
  SmallVector<Value> updateState(Value rowStart, Value rowEnd, Value slot,
                                 ValueRange state, Value vnIo) {
    // The row read: G at the chunk's last valid row, or decay_last's slot.
    Value source = decayLast, row = slot;
    if (!recurrentForm()) {
      source = G;
      row = t.subIndex(
          t.minIndex(t.addIndex(rowStart, t.index(bt)), rowEnd), t.index(1));
    }
    SmallVector<Value> next;
    for (int64_t i = 0; i < numKTiles; ++i) {
      Value lastRow = t.load(t.tileOf({kBK}, t.f32()), source,
                             {batch, row, head, kRow(i)}, {t.index(kDim)},
                             {3});
      // 2^G_last per row of K (one exp2 per row, not per state entry; the
      // recurrent form reads it exponentiated), then broadcast over the BV
      // columns.
      Value factors = recurrentForm() ? lastRow : t.exp2(lastRow);
      Value decay = t.broadcast(factors, 1, stateShape());
      Value kgi = loadRows(kg, rowStart, rowEnd, kRow(i), kBK, kDim);
      next.push_back(t.dot(t.trans(kgi), vnIo, t.mul(state[i], decay),
                           tile::Precision::ieee));
    }
    return next;
  }

  /// The chunk of rows [rowStart, min(rowStart + BT, rowEnd)) whose state
  /// enters slot `slot` of h: stores h and v_new (or, fused, o) and returns
  /// the new state tiles.
  SmallVector<Value> buildChunk(Value rowStart, Value rowEnd, Value slot,
                                ValueRange state) {
    if (recurrentForm() && transposedState)
      return buildTransposedRecurrentChunk(rowStart, rowEnd, slot, state);
    if (recurrentForm())
      return buildRecurrentChunk(rowStart, rowEnd, slot, state);
    // 1. h[slot] = rd(S).
    SmallVector<Value> rounded;
    for (auto [i, s] : llvm::enumerate(state)) {
      rounded.push_back(t.toElement(s, ioType));
      if (!fusedOutput())
        storeState(rounded.back(), h, {batch, slot, head},
                   static_cast<int64_t>(i));
    }

    // 2. Vn = u - w . rd(S); v_new = rd(Vn).
    Value ws = t.zeros({bt, kBV});
    for (int64_t i = 0; i < numKTiles; ++i) {
      Value wi = loadRows(w, rowStart, rowEnd, kRow(i), kBK, kDim);
      ws = t.dot(wi, rounded[i], ws, tile::Precision::ieee);
    }
    Value ui = t.toF32(loadRows(u, rowStart, rowEnd, v0, kBV, vDim));
    Value vn = t.sub(ui, ws);
    Value vnOut = t.toElement(vn, vType);
    if (fusedOutput())
      buildOutput(rowStart, rowEnd, rounded, vnOut);
    else
      t.store(vnOut, vNew, {batch, rowStart, head, v0},
              {rowEnd, t.index(vDim)}, {1, 3});

    // 3. S = diag(2^G_last) . S + kg^T . rd(Vn).
    return updateState(rowStart, rowEnd, slot, state,
                       t.toElement(vn, ioType));
  }

  /// Builds the scan over the chunks of rows [bos, eos), whose first chunk
  /// enters slot `firstSlot` of h (of decay_last in the recurrent form).
  void build(Value bos, Value eos, Value firstSlot) {
    SmallVector<Value> init;
    for (int64_t i = 0; i < numKTiles; ++i)
      init.push_back(h0 ? loadState(h0, seq, i) : t.zeros(stateShape()));
    Value numChunks = ceilDiv(b(), loc(), t.subIndex(eos, bos), bt);
    auto loop = scf::ForOp::create(b(), loc(), t.index(0), numChunks,
                                   t.index(1), init);
    {
      OpBuilder::InsertionGuard guard(b());
      b().setInsertionPointToStart(loop.getBody());
      Value c = loop.getInductionVar();
      Value rowStart = t.addIndex(bos, arith::MulIOp::create(
                                           b(), loc(), c, t.index(bt)));
      Value slot = t.addIndex(firstSlot, c);
      SmallVector<Value> next =
          buildChunk(rowStart, eos, slot, loop.getRegionIterArgs());
      scf::YieldOp::create(b(), loc(), next);
    }
    if (ht)
      for (int64_t i = 0; i < numKTiles; ++i)
        storeState(loop.getResult(i), ht, {seq, head}, i);
  }
};

/// The operands and results of a scan stage: kda.state_scan (w, u, h and
/// v_new set), kda.state_scan_output (w, u, q, Aqk and o set) or
/// kda.chunk_recurrence (qg, kd, v, beta, M, Aqk and o set).
struct ScanStage {
  Operation *op = nullptr;
  Value kg, w, u, G, q, aqk, h0, cu;
  Value h, vNew, o, ht;
  Value qg, kd, v, beta, m, decayLast;
  int64_t chunkSize = 64;
  StateLayout layout = StateLayout::kv;
  float scale = 1.0f;
};

LogicalResult lowerScan(const ScanStage &stage, StageContext &ctx) {
  Location loc = stage.op->getLoc();
  const bool recurrent = static_cast<bool>(stage.kd);
  auto kgType = cast<RankedTensorType>(stage.kg.getType());
  // The [B, T, HV, V] operand: u, or v in the recurrent form.
  auto uType =
      cast<RankedTensorType>((recurrent ? stage.v : stage.u).getType());
  const int64_t hv = kgType.getDimSize(2), k = kgType.getDimSize(3);
  const int64_t v = uType.getDimSize(3);
  const int64_t bt = stage.chunkSize;
  // The verifier guarantees static K and V (at most 256).
  assert(!ShapedType::isDynamic(k) && !ShapedType::isDynamic(v) &&
         "verifier: static K and V");
  const bool vk = stage.layout == StateLayout::vk;
  const bool fused = static_cast<bool>(stage.o);

  // Kernel arguments: the recurrent form's qg, kd, kg, v, beta, M, Aqk,
  // decay_last, or kg, w, u, G, [q, Aqk]; then [h0], [cu_seqlens], h, v_new
  // (or o), [ht]. The first is a [B, T, HV, K] buffer (the value heads).
  SmallVector<KernelArgument> declared;
  if (recurrent)
    declared = {{stage.qg, "qg"},   {stage.kd, "kd"},  {stage.kg, "kg"},
                {stage.v, "v"},     {stage.beta, "beta"}, {stage.m, "M"},
                {stage.aqk, "Aqk"}, {stage.decayLast, "decay_last"}};
  else
    declared = {{stage.kg, "kg"}, {stage.w, "w"},  {stage.u, "u"},
                {stage.G, "G"},   {stage.q, "q"}, {stage.aqk, "Aqk"}};
  declared.append(
      {{stage.h0, "initial_state", getStateDims(stage.layout)},
       {stage.cu, "cu_seqlens"},
       {stage.h, "h", getChunkStateDims(stage.layout)},
       {stage.vNew, "v_new"},
       {stage.o, "o"},
       {stage.ht, "final_state", getStateDims(stage.layout)}});
  KernelArguments args(ctx, stage.op, declared);
  std::optional<int64_t> h;
  if (fused && !recurrent)
    h = cast<RankedTensorType>(stage.q.getType()).getDimSize(2);
  addChunkStageKey(ctx, {k, v, h, hv, bt, stage.cu});
  if (fused && !recurrent)
    addFloatKey(ctx, "scale", stage.scale);
  ctx.addKey("state_layout", stringifyStateLayout(stage.layout));

  KernelShape shape =
      getStateKernelShape(stage.kg, recurrent ? stage.v : stage.u, stage.cu);
  KernelTuning tuning =
      tuningOf(ctx,
               recurrent ? TunedKernel::chunkRecurrence
               : fused   ? TunedKernel::stateScanFused
                         : TunedKernel::stateScan,
               shape);
  // The kernel is built with the tuning's columns of V per program, and
  // its tile.tuning records them.
  // The transposed state's default: 16 rows of V (one mma.sync M) per
  // warp, so that each warp holds its rows of the state whole.
  int64_t bv = tuning.blockV > 0 ? tuning.blockV : kDefaultBV;
  if (recurrent && tuning.transposeState && tuning.blockV <= 0 &&
      tuning.numThreads >= 32)
    bv = 16 * (tuning.numThreads / 32);
  tuning.blockV = bv;
  func::FuncOp kernel = args.createKernel(tuning);
  OpBuilder b = kernelBuilder(kernel);
  const int64_t numVTiles = (v + bv - 1) / bv;

  // One flat grid axis: program = (sequence * HV + head) * nV + V tile.
  Value pid = tile::ProgramIdOp::create(b, loc, tile::Axis::x);
  Value cNV = arith::ConstantIndexOp::create(b, loc, numVTiles);
  Value vTile = arith::RemUIOp::create(b, loc, pid, cNV);
  Value pidSH = arith::DivUIOp::create(b, loc, pid, cNV);
  Value cHV = headCount(b, loc, kernel.getArgument(0));
  Value seq = arith::DivUIOp::create(b, loc, pidSH, cHV);
  Value head = arith::RemUIOp::create(b, loc, pidSH, cHV);
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);

  StateScanKernel body{TileValueBuilder{b, loc}};
  if (recurrent)
    args.bind(kernel, body.qg, body.kd, body.kg, body.v, body.beta, body.m,
              body.aqk, body.decayLast, body.h0, body.cu, body.h, body.vNew,
              body.o, body.ht);
  else
    args.bind(kernel, body.kg, body.w, body.u, body.G, body.q, body.aqk,
              body.h0, body.cu, body.h, body.vNew, body.o, body.ht);
  if (fused && !recurrent) {
    body.scale = stage.scale;
    // Grouped value heads: value head hv reads q head hv / (HV / H).
    body.qkHead = arith::DivUIOp::create(
        b, loc, head,
        arith::DivUIOp::create(b, loc, cHV, headCount(b, loc, body.q)));
  }
  body.seq = seq;
  body.head = head;
  body.kBV = bv;
  body.v0 = arith::MulIOp::create(b, loc, vTile,
                                  arith::ConstantIndexOp::create(b, loc, bv));
  body.kDim = k;
  body.vDim = v;
  body.bt = bt;
  body.kBK = stateTileRows(k);
  body.numKTiles = (k + body.kBK - 1) / body.kBK;
  body.vkLayout = vk;
  body.transposedState = recurrent && tuning.transposeState;
  body.ioType = kgType.getElementType();
  body.vType = uType.getElementType();
  if (body.cu) {
    // Sequence `seq` spans the packed rows [cu[seq], cu[seq + 1]) of batch
    // entry 0; its chunks take the h slots from chunk_offsets[seq] on, and
    // the decay_last slots (chunk programs) from floor(cu[seq] / BT) + seq
    // on.
    body.batch = c0;
    Value bos = loadOffset(b, loc, body.cu, seq);
    Value eos =
        loadOffset(b, loc, body.cu, arith::AddIOp::create(b, loc, seq, c1));
    Value firstSlot = c0;
    if (recurrent)
      firstSlot = firstChunkProgram(b, loc, bos, seq, bt);
    else if (!fused)
      firstSlot = chunkOffset(b, loc, body.cu, seq, bt);
    body.build(bos, eos, firstSlot);
  } else {
    // Batch entry `seq` spans all T rows; its chunks take the h (or
    // decay_last) slots [0, ceil(T / BT)) of its own batch index.
    body.batch = seq;
    body.build(c0, memref::DimOp::create(b, loc, body.kg, 1), c0);
  }

  // Host: nV * N * HV programs along x (N = B, or the sequences).
  OpBuilder &hb = ctx.host;
  Value hostC1 = arith::ConstantIndexOp::create(hb, loc, 1);
  Value cuBuf = args.bufferOf(stage.cu);
  Value scanned = args.buffers()[0];
  Value numSeqs =
      cuBuf ? arith::SubIOp::create(
                  hb, loc, memref::DimOp::create(hb, loc, cuBuf, 0), hostC1)
                  .getResult()
            : memref::DimOp::create(hb, loc, scanned, 0).getResult();
  Value heads =
      arith::MulIOp::create(hb, loc, numSeqs, headCount(hb, loc, scanned));
  Value gridX = arith::MulIOp::create(
      hb, loc, heads, arith::ConstantIndexOp::create(hb, loc, numVTiles));
  launchKernel(hb, loc, kernel, gridX, hostC1, args.buffers());
  args.mapResults();
  return success();
}

} // namespace

/// The fields every scan op has: the op, kg, the initial and final states,
/// cu_seqlens, the chunk size and the state layout.
template <typename ScanOp> static ScanStage commonScanStage(ScanOp op) {
  ScanStage stage{};
  stage.op = op;
  stage.kg = op.getKg();
  stage.h0 = op.getInitialState();
  stage.cu = op.getCuSeqlens();
  stage.ht = op.getFinalState();
  stage.chunkSize = static_cast<int64_t>(op.getChunkSize());
  stage.layout = op.getStateLayout();
  return stage;
}

LogicalResult kda::lowerStage(StateScanOp op, StageContext &ctx) {
  ScanStage stage = commonScanStage(op);
  stage.G = op.getG();
  stage.w = op.getW();
  stage.u = op.getU();
  stage.h = op.getH();
  stage.vNew = op.getVNew();
  return lowerScan(stage, ctx);
}

LogicalResult kda::lowerStage(StateScanOutputOp op, StageContext &ctx) {
  ScanStage stage = commonScanStage(op);
  stage.G = op.getG();
  stage.w = op.getW();
  stage.u = op.getU();
  stage.q = op.getQ();
  stage.aqk = op.getAqk();
  stage.o = op.getO();
  stage.scale = op.getScale().convertToFloat();
  return lowerScan(stage, ctx);
}

LogicalResult kda::lowerStage(ChunkRecurrenceOp op, StageContext &ctx) {
  ScanStage stage = commonScanStage(op);
  stage.qg = op.getQg();
  stage.kd = op.getKd();
  stage.v = op.getV();
  stage.beta = op.getBeta();
  stage.m = op.getM();
  stage.aqk = op.getAqk();
  stage.decayLast = op.getDecayLast();
  stage.o = op.getO();
  return lowerScan(stage, ctx);
}
