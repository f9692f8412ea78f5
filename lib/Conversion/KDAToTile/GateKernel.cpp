//===- GateKernel.cpp - kda.gate_cumsum as a tile kernel ------------------===//
//
// One program per (K tile, chunk, batch * value head), or with the pass's
// fusable-chunk-stages one per (chunk, batch * value head) walking the K tiles:
// load the chunk's [BT, BK] gate tile (rows past the sequence end read as
// 0), apply the in-kernel activation if any, scan along rows, multiply by
// 1/ln 2, and store the rows that belong to the sequence.
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

/// 1/ln(2) rounded to fp32 (0x3FB8AA3B), applied after the chunk sum.
static constexpr float kRcpLn2 = 1.4426950408889634f;

namespace {

/// Builds tile values inside the gate kernel.
struct GateBuilder : TileValueBuilder {
  RankedTensorType tileType; // [BT, BK] f32

  Value splat(float v) { return TileValueBuilder::splat(tileType, v); }
  Value splat(Value scalar) {
    return tile::SplatOp::create(b, loc, tileType, scalar);
  }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }

  /// softplus(x) = x if x > 20 else log(1 + exp(x)).
  Value softplus(Value x) {
    Value threshold = splat(20.0f);
    Value big = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                      threshold);
    Value smooth = math::Log1pOp::create(b, loc, exp(x));
    return select(big, x, smooth);
  }

};

} // namespace

LogicalResult kda::lowerStage(GateCumsumOp op, StageContext &ctx) {
  Location loc = op.getLoc();
  auto gType = cast<RankedTensorType>(op.getG().getType());
  const int64_t hv = gType.getDimSize(2), k = gType.getDimSize(3);
  const int64_t bt = op.getChunkSize();
  const GateMode mode = op.getGateMode();
  const KernelTuning tuning = withKTileWidth(
      ctx,
      tuningOf(ctx, mode == GateMode::precomputed ? TunedKernel::gatePrecomputed
                                                   : TunedKernel::gate),
      k);
  const int64_t bk = tuning.blockK;

  // Kernel arguments: g, G, [a_log], [dt_bias], [cu_seqlens].
  KernelArguments args(ctx, op,
                       {{op.getG(), "g"},
                        {op.getResult(), "G"},
                        {op.getALog(), "a_log"},
                        {op.getDtBias(), "dt_bias"},
                        {op.getCuSeqlens(), "cu_seqlens"}});
  addChunkStageKey(ctx,
                   {k, std::nullopt, std::nullopt, hv, bt, op.getCuSeqlens()});
  ctx.addKey("gate", stringifyGateMode(mode));
  if (auto lb = op.getLowerBound())
    addFloatKey(ctx, "lower_bound", lb->convertToFloat());

  func::FuncOp kernel = args.createKernel(tuning);
  OpBuilder b = kernelBuilder(kernel);
  Value g, out, aLog, dtBias, cu;
  args.bind(kernel, g, out, aLog, dtBias, cu);

  Value cK = arith::ConstantIndexOp::create(b, loc, k);
  Value cHV = headCount(b, loc, g);
  Value cNK = arith::ConstantIndexOp::create(b, loc, (k + bk - 1) / bk);
  Value numChunks = countChunks(b, loc, g, cu, bt);
  Value pid = tile::ProgramIdOp::create(b, loc, tile::Axis::x);
  // One flat grid axis (up to 2^31 - 1 programs, so no limit on B * HV or
  // T from the 65535 cap of the other axes). Per K tile: program =
  // (bh * NT + t) * NK + k. Per chunk: program = t * (B * HV) + bh, as the
  // other per-chunk stages number theirs, and the program walks the K
  // tiles.
  Value pidK, pidT, pidBH;
  if (ctx.fusableChunkStages) {
    Value numBH = batchHeads(b, loc, g);
    pidT = arith::DivUIOp::create(b, loc, pid, numBH);
    pidBH = arith::RemUIOp::create(b, loc, pid, numBH);
  } else {
    pidK = arith::RemUIOp::create(b, loc, pid, cNK);
    Value rest = arith::DivUIOp::create(b, loc, pid, cNK);
    pidT = arith::RemUIOp::create(b, loc, rest, numChunks);
    pidBH = arith::DivUIOp::create(b, loc, rest, numChunks);
  }
  Value batch = arith::DivUIOp::create(b, loc, pidBH, cHV);
  Value head = arith::RemUIOp::create(b, loc, pidBH, cHV);
  Value col0; // the first column of the program's K tile
  if (!ctx.fusableChunkStages)
    col0 = arith::MulIOp::create(
        b, loc, pidK, arith::ConstantIndexOp::create(b, loc, bk));

  // Row range [rowStart, rowEnd) of this chunk's sequence along dim 1.
  ChunkRows rows =
      locateChunk(b, loc, pidT, g, cu, bt, ctx.fusableChunkStages);
  Value rowStart = rows.start, rowEnd = rows.end, valid = rows.valid;

  auto ifOp = scf::IfOp::create(b, loc, valid, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  if (ctx.fusableChunkStages) {
    // for col0 = 0 .. K step BK
    auto loop = scf::ForOp::create(
        b, loc, arith::ConstantIndexOp::create(b, loc, 0), cK,
        arith::ConstantIndexOp::create(b, loc, bk));
    b.setInsertionPointToStart(loop.getBody());
    col0 = loop.getInductionVar();
  }

  auto f32 = b.getF32Type();
  auto tileType = RankedTensorType::get({bt, bk}, f32);
  auto rawType = RankedTensorType::get({bt, bk}, gType.getElementType());
  SmallVector<Value> at{batch, rowStart, head, col0};
  Value x = tile::LoadOp::create(b, loc, rawType, g, at, ValueRange{rowEnd, cK},
                                 b.getDenseI64ArrayAttr({1, 3}), nullptr);
  if (!gType.getElementType().isF32())
    x = arith::ExtFOp::create(b, loc, tileType, x);

  GateBuilder gate{{b, loc}, tileType};
  Value gamma = x;
  if (mode != GateMode::precomputed) {
    Value a = x;
    if (dtBias) {
      auto rowType = RankedTensorType::get({bk}, f32);
      Value bias;
      if (cast<MemRefType>(dtBias.getType()).getRank() == 2) {
        bias = tile::LoadOp::create(b, loc, rowType, dtBias,
                                    ValueRange{head, col0}, ValueRange{cK},
                                    b.getDenseI64ArrayAttr({1}), nullptr);
      } else {
        Value base = arith::MulIOp::create(b, loc, head, cK);
        Value start = arith::AddIOp::create(b, loc, base, col0);
        Value end = arith::AddIOp::create(b, loc, base, cK);
        bias = tile::LoadOp::create(b, loc, rowType, dtBias, ValueRange{start},
                                    ValueRange{end},
                                    b.getDenseI64ArrayAttr({0}), nullptr);
      }
      Value rows = tile::BroadcastOp::create(b, loc, tileType, bias,
                                             b.getDenseI64ArrayAttr({0}));
      a = gate.add(a, rows);
    }
    Value scale; // exp(A_log[hv]) or none
    if (aLog)
      scale = math::ExpOp::create(b, loc,
                                  memref::LoadOp::create(b, loc, aLog, head));
    if (mode == GateMode::softplus) {
      // gamma = -exp(A_log) * softplus(a)
      Value negScale = arith::NegFOp::create(b, loc, scale);
      gamma = gate.mul(gate.splat(negScale), gate.softplus(a));
    } else {
      // gamma = lower_bound * sigmoid(exp(A_log) * a)
      Value s = scale ? gate.mul(gate.splat(scale), a) : a;
      float lb = op.getLowerBound()->convertToFloat();
      // (the lower bound folded into the approximate form's numerator)
      gamma = ctx.approximateSigmoid
                  ? gate.sigmoid(s, lb, /*approximate=*/true)
                  : gate.mul(gate.splat(lb),
                             gate.sigmoid(s, 1.0, /*approximate=*/false));
    }
  }

  Value sum = tile::ScanOp::create(b, loc, gamma, tile::CombineKind::add,
                                   /*dim=*/0, /*reverse=*/false);
  Value result = gate.mul(sum, gate.splat(kRcpLn2));
  tile::StoreOp::create(b, loc, result, out, at, ValueRange{rowEnd, cK},
                        b.getDenseI64ArrayAttr({1, 3}));

  // Host: NK * NT * B * HV programs along x (NT * B * HV per chunk).
  tile::LaunchOp launch = launchOverChunks(
      ctx, loc, kernel, args.buffers(), args.bufferOf(op.getG()),
      args.bufferOf(op.getCuSeqlens()), bt,
      [&](OpBuilder &h, Value chunks, Value heads) -> Value {
        if (ctx.fusableChunkStages)
          return arith::MulIOp::create(h, loc, chunks, heads);
        Value kTiles =
            arith::ConstantIndexOp::create(h, loc, (k + bk - 1) / bk);
        return arith::MulIOp::create(
            h, loc, arith::MulIOp::create(h, loc, kTiles, chunks), heads);
      });
  if (ctx.fusableChunkStages)
    setChunkPartition(launch, bt);
  args.mapResults();
  return success();
}
