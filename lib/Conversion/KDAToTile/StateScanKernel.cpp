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
//===----------------------------------------------------------------------===//

#include "StageLowering.h"

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

/// Columns of V per program. 16 (twice the programs) ran 876 us and 64
/// (with 8 warps) 702 us against 602 at the shape above.
static constexpr int64_t kBV = 32;

/// Threads per state_scan program on the GPU (4 warps; 2 and 8 ran 611
/// and 836 us against 602 at the shape above).
static constexpr int64_t kStateScanThreads = 128;

namespace {

/// Builds the tile values of the kernel.
struct StateScanBuilder {
  OpBuilder &b;
  Location loc;

  Type f32() { return b.getF32Type(); }
  RankedTensorType tileOf(ArrayRef<int64_t> shape, Type element) {
    return RankedTensorType::get(shape, element);
  }
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value addi(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value subi(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value muli(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }

  /// An f32 tile of zeros.
  Value zeros(ArrayRef<int64_t> shape) {
    Value scalar =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(f32(), 0.0));
    return tile::SplatOp::create(b, loc, tileOf(shape, f32()), scalar);
  }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value exp2(Value x) { return math::Exp2Op::create(b, loc, x); }

  /// acc + x * y (exact f32 products for f32 operands).
  Value dot(Value x, Value y, Value acc) {
    return tile::DotOp::create(b, loc, acc.getType(), x, y, acc,
                               tile::Precision::ieee);
  }
  Value trans(Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    return tile::TransOp::create(
        b, loc,
        tileOf({type.getDimSize(1), type.getDimSize(0)}, type.getElementType()),
        x, nullptr);
  }
  /// r[i, j] = v[i] for a 1-D tile `v`, as a 2-D tile of `shape`.
  Value broadcastRows(Value v, ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(v.getType());
    return tile::BroadcastOp::create(b, loc,
                                     tileOf(shape, type.getElementType()), v,
                                     b.getDenseI64ArrayAttr({1}));
  }
  /// Extends a float tile to f32 (no-op for f32).
  Value toF32(Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getElementType().isF32())
      return x;
    return arith::ExtFOp::create(b, loc, tileOf(type.getShape(), f32()), x);
  }
  /// Rounds an f32 tile to `element` (no-op for f32).
  Value toElement(Value x, Type element) {
    auto type = cast<RankedTensorType>(x.getType());
    if (element.isF32())
      return x;
    return arith::TruncFOp::create(b, loc, tileOf(type.getShape(), element), x);
  }
};

/// Everything the kernel body needs: arguments, program coordinates and
/// problem constants.
struct StateScanKernel {
  StateScanBuilder t;
  // Arguments (h0, ht and cu_seqlens may be null).
  Value kg, w, u, G, h0, h, vNew, ht, cu;
  // Program coordinates: the batch entry of the token rows, the sequence
  // (state slot), the value head and the first V column.
  Value batch, seq, head, v0;
  // Static sizes.
  int64_t kDim = 0, vDim = 0, bt = 0, numKTiles = 0;
  /// Rows of K per state tile (stateTileRows).
  int64_t kBK = 64;
  bool vkLayout = false;
  /// Element type of kg, w and h, and of u and v_new.
  Type ioType, vType;

  OpBuilder &b() { return t.b; }
  Location loc() { return t.loc; }
  SmallVector<int64_t, 2> stateShape() { return {kBK, kBV}; }
  /// First K row of state tile `i`.
  Value kRow(int64_t i) { return t.index(i * kBK); }

  /// State tile `i` ([64, BV] f32, rows of K) of slot `slot` of the rank-4
  /// state `source` ([N, HV, K, V], or [N, HV, V, K] with vk); entries past
  /// K or V read as 0.
  Value loadState(Value source, Value slot, int64_t i) {
    if (!vkLayout)
      return tile::LoadOp::create(b(), loc(), t.tileOf(stateShape(), t.f32()),
                                  source, ValueRange{slot, head, kRow(i), v0},
                                  ValueRange{}, b().getDenseI64ArrayAttr({2, 3}),
                                  nullptr);
    Value vk = tile::LoadOp::create(
        b(), loc(), t.tileOf({kBV, kBK}, t.f32()), source,
        ValueRange{slot, head, v0, kRow(i)}, ValueRange{},
        b().getDenseI64ArrayAttr({2, 3}), nullptr);
    return t.trans(vk);
  }

  /// Stores state tile `i` (`value`, [64, BV]) at `indices` (the leading
  /// slot indices) of `dest`, whose last two dimensions are K, V (or V, K
  /// with vk); entries past K or V are dropped.
  void storeState(Value value, Value dest, SmallVector<Value> indices,
                  int64_t i) {
    int64_t rank = cast<MemRefType>(dest.getType()).getRank();
    if (vkLayout) {
      value = t.trans(value);
      indices.append({v0, kRow(i)});
    } else {
      indices.append({kRow(i), v0});
    }
    tile::StoreOp::create(b(), loc(), value, dest, indices, ValueRange{},
                          b().getDenseI64ArrayAttr({rank - 2, rank - 1}));
  }

  /// The [BT, width] tile of rows [row, row + BT) and columns [col, col +
  /// width) of a [B, T, HV, D] buffer at the program's head, in its element
  /// type; rows >= rowEnd and columns >= D read as 0.
  Value loadRows(Value source, Value row, Value rowEnd, Value col,
                 int64_t width, int64_t d) {
    auto elem = cast<MemRefType>(source.getType()).getElementType();
    return tile::LoadOp::create(
        b(), loc(), t.tileOf({bt, width}, elem), source,
        ValueRange{batch, row, head, col}, ValueRange{rowEnd, t.index(d)},
        b().getDenseI64ArrayAttr({1, 3}), nullptr);
  }

  /// The chunk of rows [rowStart, min(rowStart + BT, rowEnd)) whose state
  /// enters slot `slot` of h: stores h and v_new and returns the new state
  /// tiles.
  SmallVector<Value> buildChunk(Value rowStart, Value rowEnd, Value slot,
                                ValueRange state) {
    // 1. h[slot] = rd(S).
    SmallVector<Value> rounded;
    for (auto [i, s] : llvm::enumerate(state)) {
      rounded.push_back(t.toElement(s, ioType));
      storeState(rounded.back(), h, {batch, slot, head},
                 static_cast<int64_t>(i));
    }

    // 2. Vn = u - w . rd(S); v_new = rd(Vn).
    Value ws = t.zeros({bt, kBV});
    for (int64_t i = 0; i < numKTiles; ++i) {
      Value wi = loadRows(w, rowStart, rowEnd, kRow(i), kBK, kDim);
      ws = t.dot(wi, rounded[i], ws);
    }
    Value ui = t.toF32(loadRows(u, rowStart, rowEnd, v0, kBV, vDim));
    Value vn = t.sub(ui, ws);
    tile::StoreOp::create(b(), loc(), t.toElement(vn, vType), vNew,
                          ValueRange{batch, rowStart, head, v0},
                          ValueRange{rowEnd, t.index(vDim)},
                          b().getDenseI64ArrayAttr({1, 3}));
    Value vnIo = t.toElement(vn, ioType);

    // 3. S = diag(2^G_last) . S + kg^T . rd(Vn), G_last at the last valid
    //    row of the chunk.
    Value lastRow = t.subi(
        arith::MinSIOp::create(b(), loc(), t.addi(rowStart, t.index(bt)),
                               rowEnd),
        t.index(1));
    SmallVector<Value> next;
    for (int64_t i = 0; i < numKTiles; ++i) {
      Value gLast = tile::LoadOp::create(
          b(), loc(), t.tileOf({kBK}, t.f32()), G,
          ValueRange{batch, lastRow, head, kRow(i)}, ValueRange{t.index(kDim)},
          b().getDenseI64ArrayAttr({3}), nullptr);
      // 2^G_last per row of K, then broadcast over the BV columns (one
      // exp2 per row, not per state entry).
      Value decay = t.broadcastRows(t.exp2(gLast), stateShape());
      Value kgi = loadRows(kg, rowStart, rowEnd, kRow(i), kBK, kDim);
      next.push_back(t.dot(t.trans(kgi), vnIo, t.mul(state[i], decay)));
    }
    return next;
  }

  /// Builds the scan over the chunks of rows [bos, eos), whose first chunk
  /// enters slot `firstSlot` of h.
  void build(Value bos, Value eos, Value firstSlot) {
    SmallVector<Value> init;
    for (int64_t i = 0; i < numKTiles; ++i)
      init.push_back(h0 ? loadState(h0, seq, i) : t.zeros(stateShape()));
    Value numChunks = ceilDiv(b(), loc(), t.subi(eos, bos), bt);
    auto loop = scf::ForOp::create(b(), loc(), t.index(0), numChunks,
                                   t.index(1), init);
    {
      OpBuilder::InsertionGuard guard(b());
      b().setInsertionPointToStart(loop.getBody());
      Value c = loop.getInductionVar();
      Value rowStart = t.addi(bos, t.muli(c, t.index(bt)));
      Value slot = t.addi(firstSlot, c);
      SmallVector<Value> next =
          buildChunk(rowStart, eos, slot, loop.getRegionIterArgs());
      scf::YieldOp::create(b(), loc(), next);
    }
    if (ht)
      for (int64_t i = 0; i < numKTiles; ++i)
        storeState(loop.getResult(i), ht, {seq, head}, i);
  }
};

/// Entry `i` of the i64 buffer `cu`, as an index.
Value loadOffset(OpBuilder &b, Location loc, Value cu, Value i) {
  Value v = memref::LoadOp::create(b, loc, cu, ValueRange{i});
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

/// chunk_offsets[n] = sum over m < n of ceil((cu[m+1] - cu[m]) / BT): the
/// global id of the first chunk of sequence `n`.
Value chunkOffset(OpBuilder &b, Location loc, Value cu, Value n, int64_t bt) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, c0, n, c1, ValueRange{c0});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value m = loop.getInductionVar();
  Value len = arith::SubIOp::create(
      b, loc, loadOffset(b, loc, cu, arith::AddIOp::create(b, loc, m, c1)),
      loadOffset(b, loc, cu, m));
  Value sum = arith::AddIOp::create(b, loc, loop.getRegionIterArg(0),
                                    ceilDiv(b, loc, len, bt));
  scf::YieldOp::create(b, loc, sum);
  return loop.getResult(0);
}

} // namespace

LogicalResult kda::lowerStateScan(StateScanOp op, StageContext &ctx) {
  Location loc = op.getLoc();
  auto kgType = cast<RankedTensorType>(op.getKg().getType());
  auto uType = cast<RankedTensorType>(op.getU().getType());
  const int64_t hv = kgType.getDimSize(2), k = kgType.getDimSize(3);
  const int64_t v = uType.getDimSize(3);
  const int64_t bt = op.getChunkSize();
  // The verifier guarantees static K and V (at most 256).
  assert(!ShapedType::isDynamic(k) && !ShapedType::isDynamic(v) &&
         "verifier: static K and V");
  const bool vk = op.getStateLayout() == StateLayout::vk;

  // Manifest names and key.
  SmallVector<StringRef> stateDims = {"N", "HV", "K", "V"};
  SmallVector<StringRef> hDims = {"B", "NT", "HV", "K", "V"};
  if (vk) {
    std::swap(stateDims[2], stateDims[3]);
    std::swap(hDims[3], hDims[4]);
  }
  ctx.describe(op.getKg(), "kg", {"B", "T", "HV", "K"});
  ctx.describe(op.getW(), "w", {"B", "T", "HV", "K"});
  ctx.describe(op.getU(), "u", {"B", "T", "HV", "V"});
  ctx.describe(op.getG(), "G", {"B", "T", "HV", "K"});
  if (op.getInitialState())
    ctx.describe(op.getInitialState(), "initial_state", stateDims);
  if (op.getCuSeqlens())
    ctx.describe(op.getCuSeqlens(), "cu_seqlens", {"N1"});
  ctx.describe(op.getH(), "h", hDims);
  ctx.describe(op.getVNew(), "v_new", {"B", "T", "HV", "V"});
  if (op.getFinalState())
    ctx.describe(op.getFinalState(), "final_state", stateDims);
  ctx.addKey("K", std::to_string(k));
  ctx.addKey("V", std::to_string(v));
  addDimKey(ctx, "HV", hv);
  ctx.addKey("chunk", std::to_string(bt));
  ctx.addKey("state_layout", stringifyStateLayout(op.getStateLayout()));
  ctx.addKey("varlen", op.getCuSeqlens() ? "1" : "0");

  // Kernel arguments: kg, w, u, G, [h0], [cu_seqlens], h, v_new, [ht].
  SmallVector<Value> args;
  for (Value input : {op.getKg(), op.getW(), op.getU(), op.getG()})
    args.push_back(ctx.buffers.lookup(input));
  int h0Idx = -1, cuIdx = -1, htIdx = -1;
  if (Value h0 = op.getInitialState()) {
    h0Idx = args.size();
    args.push_back(ctx.buffers.lookup(h0));
  }
  Value cuBuf;
  if (Value cu = op.getCuSeqlens()) {
    cuIdx = args.size();
    cuBuf = ctx.buffers.lookup(cu);
    args.push_back(cuBuf);
  }
  Value hBuf = ctx.allocateResult(op.getH());
  Value vNewBuf = ctx.allocateResult(op.getVNew());
  const int hIdx = args.size();
  args.push_back(hBuf);
  args.push_back(vNewBuf);
  Value htBuf;
  if (Value ht = op.getFinalState()) {
    htIdx = args.size();
    htBuf = ctx.allocateResult(ht);
    args.push_back(htBuf);
  }

  func::FuncOp kernel =
      createKernel(ctx.module, ctx.kernelPrefix, ValueRange(args).getTypes(),
                   kStateScanThreads);
  OpBuilder b(kernel.getBody().front().getTerminator());
  Block &entry = kernel.getBody().front();
  auto arg = [&](int i) { return i < 0 ? Value() : entry.getArgument(i); };
  const int64_t numVTiles = (v + kBV - 1) / kBV;

  // One flat grid axis: program = (sequence * HV + head) * nV + V tile.
  Value pid = tile::ProgramIdOp::create(b, loc, tile::Axis::x);
  Value cNV = arith::ConstantIndexOp::create(b, loc, numVTiles);
  Value vTile = arith::RemUIOp::create(b, loc, pid, cNV);
  Value pidSH = arith::DivUIOp::create(b, loc, pid, cNV);
  Value cHV = headCount(b, loc, arg(0));
  Value seq = arith::DivUIOp::create(b, loc, pidSH, cHV);
  Value head = arith::RemUIOp::create(b, loc, pidSH, cHV);
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);

  StateScanKernel body{StateScanBuilder{b, loc}};
  body.kg = arg(0);
  body.w = arg(1);
  body.u = arg(2);
  body.G = arg(3);
  body.h0 = arg(h0Idx);
  body.cu = arg(cuIdx);
  body.h = arg(hIdx);
  body.vNew = arg(hIdx + 1);
  body.ht = arg(htIdx);
  body.seq = seq;
  body.head = head;
  body.v0 = arith::MulIOp::create(b, loc, vTile,
                                  arith::ConstantIndexOp::create(b, loc, kBV));
  body.kDim = k;
  body.vDim = v;
  body.bt = bt;
  body.kBK = stateTileRows(k);
  body.numKTiles = (k + body.kBK - 1) / body.kBK;
  body.vkLayout = vk;
  body.ioType = kgType.getElementType();
  body.vType = uType.getElementType();
  if (body.cu) {
    // Sequence `seq` spans the packed rows [cu[seq], cu[seq + 1]) of batch
    // entry 0; its chunks take the h slots from chunk_offsets[seq] on.
    body.batch = c0;
    Value bos = loadOffset(b, loc, body.cu, seq);
    Value eos =
        loadOffset(b, loc, body.cu, arith::AddIOp::create(b, loc, seq, c1));
    body.build(bos, eos, chunkOffset(b, loc, body.cu, seq, bt));
  } else {
    // Batch entry `seq` spans all T rows; its chunks take the h slots
    // [0, ceil(T / BT)) of its own batch index.
    body.batch = seq;
    body.build(c0, memref::DimOp::create(b, loc, body.kg, 1), c0);
  }

  // Host: nV * N * HV programs along x (N = B, or the sequences).
  OpBuilder &hb = ctx.host;
  Value hostC1 = arith::ConstantIndexOp::create(hb, loc, 1);
  Value numSeqs =
      cuBuf ? arith::SubIOp::create(
                  hb, loc, memref::DimOp::create(hb, loc, cuBuf, 0), hostC1)
                  .getResult()
            : memref::DimOp::create(hb, loc, args[0], 0).getResult();
  Value heads =
      arith::MulIOp::create(hb, loc, numSeqs, headCount(hb, loc, args[0]));
  Value gridX = arith::MulIOp::create(
      hb, loc, heads, arith::ConstantIndexOp::create(hb, loc, numVTiles));
  tile::LaunchOp::create(hb, loc, kernel.getSymName(), gridX, hostC1, hostC1,
                         args);
  ctx.buffers.map(op.getH(), hBuf);
  ctx.buffers.map(op.getVNew(), vNewBuf);
  if (htBuf)
    ctx.buffers.map(op.getFinalState(), htBuf);
  return success();
}
