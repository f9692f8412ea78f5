//===- InterSolveKernel.cpp - kda.inter_solve as a tile kernel ------------===//
//
// The seed kernel (fla's fused inter-sub-chunk + solve_tril forward): one
// program per (chunk, batch * value head), numbered along the grid's x axis.
// With NC = BT / 16 sub-chunks of 16 rows, each program
//
//  1. accumulates the off-diagonal blocks Aqk_IJ and Akk_IJ (I > J) over
//     K tiles of BK columns (an scf.for carrying the accumulators), with the
//     gate of the first row of sub-chunk I as reference; sub-chunks whose
//     first row is past the sequence end are skipped by nested scf.ifs that
//     carry the accumulators through unchanged;
//  2. scales Aqk by `scale` and Akk by beta (per row);
//  3. loads the diagonal blocks from Akkd and inverts them, all NC in one
//     tile.unit_lower_inverse (unless `safe_gate`: then Akkd already holds
//     the inverses);
//  4. merges the blocks into M = (I + Akk)^-1 with 16x16 dots at the op's
//     precision;
//  5. stores, for every sub-chunk that has rows, all BT columns of its Aqk
//     row block (the input's diagonal block copied, the blocks left of it
//     computed, zeros right of it) and of its M row block (zeros above the
//     block diagonal), so that no consumer reads memory nothing wrote.
//
// Rows past the sequence end read as 0 and are never stored; accumulators
// are f32 and outputs are cast to the I/O dtype.
//
//===----------------------------------------------------------------------===//

#include "SubChunkKernel.h"

#include "kda/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::kda;

namespace {

/// The tile.dot precision of a kda solve precision.
tile::Precision toTilePrecision(SolvePrecision precision) {
  switch (precision) {
  case SolvePrecision::ieee:
    return tile::Precision::ieee;
  case SolvePrecision::tf32:
    return tile::Precision::tf32;
  case SolvePrecision::tf32x3:
    return tile::Precision::tf32x3;
  }
  llvm_unreachable("unknown solve precision");
}

/// The body of one inter_solve program.
struct InterSolveKernel : SubChunkKernelBody {
  using SubChunkKernelBody::SubChunkKernelBody;

  // Arguments after those of SubChunkKernelBody.
  Value aqkOut, m;
  tile::Precision offDiagPrecision = tile::Precision::tf32;
  tile::Precision mergePrecision = tile::Precision::tf32;

  /// First row of sub-chunk `i`.
  Value subRow(int64_t i) {
    if (i == 0)
      return rowStart;
    return arith::AddIOp::create(b(), loc(), rowStart, t.index(i * kBC));
  }
  /// Number of rows of sub-chunk `i` before the sequence end (may be <= 0).
  Value subRowsLeft(int64_t i) {
    return arith::SubIOp::create(b(), loc(), rowEnd, subRow(i));
  }
  /// True if sub-chunk `i` has at least one row.
  Value subValid(int64_t i) {
    return arith::CmpIOp::create(b(), loc(), arith::CmpIPredicate::slt,
                                 subRow(i), rowEnd);
  }

  /// Index of the off-diagonal pair (I, J), I > J, in row-major order.
  static int64_t pairIndex(int64_t i, int64_t j) { return i * (i - 1) / 2 + j; }

  /// Builds the body of one K step from sub-chunk `i` on: skipped (an scf.if
  /// yielding its accumulators unchanged) when sub-chunk `i` has no row.
  /// `acc` holds (Aqk, Akk) accumulators for every pair (I, J) with I >= i,
  /// in pair order; returns their new values. `ks`/`gs` are the k and G
  /// tiles of sub-chunks 0 .. i-1.
  SmallVector<Value> buildSubChunkStep(int64_t i, Value col,
                                       SmallVector<Value> ks,
                                       SmallVector<Value> gs, ValueRange acc) {
    auto ifOp = scf::IfOp::create(b(), loc(), acc.getTypes(), subValid(i),
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b());
      b().setInsertionPointToStart(&ifOp.getElseRegion().front());
      scf::YieldOp::create(b(), loc(), acc);

      b().setInsertionPointToStart(&ifOp.getThenRegion().front());
      Value row = subRow(i);
      Value qi = loadRows(q, row, qkHead, col);
      Value ki = loadRows(k, row, qkHead, col);
      Value gi = loadRows(G, row, head, col);
      // gn: G at the first row of sub-chunk i (columns >= K read as 0).
      // The row is not a bounded dimension of this load, so it reads at
      // most the chunk's last row: the kernel's loads are speculated out
      // of this branch (speculate_loads in its tile.tuning), and a
      // sub-chunk past the sequence end would otherwise read past the end
      // of G. The clamp changes nothing where the branch runs (row <
      // rowEnd).
      Value lastRow = arith::SubIOp::create(b(), loc(), rowEnd, t.index(1));
      Value gnAt = arith::MinSIOp::create(b(), loc(), row, lastRow);
      Value gnRow = tile::LoadOp::create(
          b(), loc(), t.tileOf({bk}, t.f32()), G,
          ValueRange{batch, gnAt, head, col}, ValueRange{t.index(kDim)},
          b().getDenseI64ArrayAttr({3}), nullptr);
      Value gn = t.broadcast(gnRow, 0, {kBC, bk});
      // 2^(G_i - gn), 0 on rows past the sequence end (where the exponent
      // of a zero-padded G is not bounded).
      Value inRange =
          t.indexMask({kBC, bk}, 0, subRowsLeft(i), arith::CmpIPredicate::slt);
      Value decay =
          t.select(inRange, t.exp2(t.sub(gi, gn)), t.zeros({kBC, bk}));
      Value qg = t.mul(qi, decay);
      Value kg = t.mul(ki, decay);
      SmallVector<Value> next(acc.begin(), acc.end());
      for (int64_t j = 0; j < i; ++j) {
        // (k_j * 2^(gn - G_j))^T: [BK, BC]; the exponent is <= 0.
        Value kt = t.trans(t.mul(ks[j], t.exp2(t.sub(gn, gs[j]))));
        int64_t p = 2 * (pairIndex(i, j) - pairIndex(i, 0));
        next[p] = t.dot(qg, kt, acc[p], offDiagPrecision);
        next[p + 1] = t.dot(kg, kt, acc[p + 1], offDiagPrecision);
      }
      if (i + 1 < numSub) {
        ks.push_back(ki);
        gs.push_back(gi);
        int64_t own = 2 * i; // accumulators of the pairs (i, 0 .. i-1)
        SmallVector<Value> rest = buildSubChunkStep(
            i + 1, col, ks, gs, ValueRange(next).drop_front(own));
        llvm::copy(rest, next.begin() + own);
      }
      scf::YieldOp::create(b(), loc(), next);
    }
    return SmallVector<Value>(ifOp.getResults());
  }

  /// Stores the [BC, BC] f32 block `value` at (row, column block `j`) of a
  /// [B, T, HV, BT] output, rows >= rowEnd dropped.
  void storeBlock(Value value, Value dest, Value row, int64_t j) {
    tile::StoreOp::create(b(), loc(), t.toElement(value, ioType), dest,
                          ValueRange{batch, row, head, t.index(j * kBC)},
                          ValueRange{rowEnd, t.index(bt)},
                          b().getDenseI64ArrayAttr({1, 3}));
  }

  void build() {
    const int64_t numPairs = numSub * (numSub - 1) / 2;
    auto blockShape = SmallVector<int64_t>{kBC, kBC};

    //===------------------------------------------------------------------===//
    // 1. Off-diagonal blocks, accumulated over K tiles.
    //===------------------------------------------------------------------===//
    // aqkAcc[p], akkAcc[p] for pair p = pairIndex(I, J). A chunk of one
    // sub-chunk (BT = 16) has none.
    SmallVector<Value> aqkAcc, akkAcc;
    if (numPairs > 0) {
      SmallVector<Value> init;
      for (int64_t p = 0; p < 2 * numPairs; ++p)
        init.push_back(t.zeros(blockShape));
      auto kLoop = scf::ForOp::create(b(), loc(), t.index(0), t.index(kDim),
                                      t.index(bk), init);
      {
        OpBuilder::InsertionGuard guard(b());
        b().setInsertionPointToStart(kLoop.getBody());
        Value col = kLoop.getInductionVar();
        Value k0 = loadRows(k, rowStart, qkHead, col);
        Value g0 = loadRows(G, rowStart, head, col);
        SmallVector<Value> next =
            buildSubChunkStep(1, col, {k0}, {g0}, kLoop.getRegionIterArgs());
        scf::YieldOp::create(b(), loc(), next);
      }
      for (int64_t p = 0; p < numPairs; ++p) {
        aqkAcc.push_back(kLoop.getResult(2 * p));
        akkAcc.push_back(kLoop.getResult(2 * p + 1));
      }
    }

    //===------------------------------------------------------------------===//
    // 2. Aqk *= scale; Akk *= beta (row i of sub-chunk I by beta_i).
    //===------------------------------------------------------------------===//
    Value scaleTile = t.splat(t.tileOf(blockShape, t.f32()), scale);
    SmallVector<Value> akkBlock(numPairs);
    for (int64_t i = 1; i < numSub; ++i) {
      Value betaRows = t.broadcast(loadBeta(subRow(i)), 1, blockShape);
      for (int64_t j = 0; j < i; ++j) {
        int64_t p = pairIndex(i, j);
        aqkAcc[p] = t.mul(aqkAcc[p], scaleTile);
        akkBlock[p] = t.mul(akkAcc[p], betaRows);
      }
    }
    auto A = [&](int64_t i, int64_t j) { return akkBlock[pairIndex(i, j)]; };

    //===------------------------------------------------------------------===//
    // 3. Diagonal blocks D_I = (I + Akk_II)^-1.
    //===------------------------------------------------------------------===//
    SmallVector<Value> d;
    for (int64_t i = 0; i < numSub; ++i) {
      Value block =
          tile::LoadOp::create(b(), loc(), t.tileOf(blockShape, t.f32()), akkd,
                               ValueRange{batch, subRow(i), head, t.index(0)},
                               ValueRange{rowEnd, t.index(kBC)},
                               b().getDenseI64ArrayAttr({1, 3}), nullptr);
      d.push_back(block);
    }
    // Rows past the sequence end load as 0 and give identity rows.
    if (!safeGate)
      d = t.unitLowerInverse(d);

    //===------------------------------------------------------------------===//
    // 4. Block merge: M_II = D_I, and for I > J
    //    M_IJ = -D_I * sum_{m = J .. I-1} A_Im * M_mJ, in the seed's order:
    //    -(D_I * A_I,I-1) * D_I-1 next to the diagonal, else
    //    -D_I * (A_IJ * D_J + A_I,J+1 * M_J+1,J + ...).
    //===------------------------------------------------------------------===//
    SmallVector<SmallVector<Value>> mBlocks(numSub, SmallVector<Value>(numSub));
    for (int64_t i = 0; i < numSub; ++i)
      mBlocks[i][i] = d[i];
    for (int64_t dist = 1; dist < numSub; ++dist) {
      for (int64_t i = dist; i < numSub; ++i) {
        int64_t j = i - dist;
        Value prod;
        if (dist == 1) {
          prod =
              t.dot(t.dot(d[i], A(i, j), mergePrecision), d[j], mergePrecision);
        } else {
          Value sum = t.dot(A(i, j), mBlocks[j][j], mergePrecision);
          for (int64_t m = j + 1; m < i; ++m)
            sum = t.dot(A(i, m), mBlocks[m][j], sum, mergePrecision);
          prod = t.dot(d[i], sum, mergePrecision);
        }
        mBlocks[i][j] = t.neg(prod);
      }
    }

    //===------------------------------------------------------------------===//
    // 5. Stores, per sub-chunk with rows: all BT columns of the Aqk row block
    //    (diagonal block copied from the input, blocks left of it computed,
    //    zeros right of it) and of the M row block.
    //===------------------------------------------------------------------===//
    Value zeroBlock = t.zeros(blockShape);
    for (int64_t i = 0; i < numSub; ++i) {
      OpBuilder::InsertionGuard guard(b());
      if (i > 0) {
        auto ifOp = scf::IfOp::create(b(), loc(), subValid(i),
                                      /*withElseRegion=*/false);
        b().setInsertionPointToStart(&ifOp.getThenRegion().front());
      }
      Value row = subRow(i);
      Value diag =
          tile::LoadOp::create(b(), loc(), t.tileOf(blockShape, ioType), aqk,
                               ValueRange{batch, row, head, t.index(i * kBC)},
                               ValueRange{rowEnd, t.index(bt)},
                               b().getDenseI64ArrayAttr({1, 3}), nullptr);
      tile::StoreOp::create(b(), loc(), diag, aqkOut,
                            ValueRange{batch, row, head, t.index(i * kBC)},
                            ValueRange{rowEnd, t.index(bt)},
                            b().getDenseI64ArrayAttr({1, 3}));
      for (int64_t j = 0; j < numSub; ++j)
        if (j != i)
          storeBlock(j < i ? aqkAcc[pairIndex(i, j)] : zeroBlock, aqkOut, row,
                     j);
      for (int64_t j = 0; j < numSub; ++j)
        storeBlock(j <= i ? mBlocks[i][j] : zeroBlock, m, row, j);
    }
  }
};

} // namespace

LogicalResult kda::lowerStage(InterSolveOp op, StageContext &ctx) {
  // Kernel arguments: q, k, G, beta, Aqk, Akkd, Aqk_out, M, [cu_seqlens].
  FailureOr<KernelArguments> args = declareSubChunkArguments(
      ctx, op, {{op.getAqkOut(), "Aqk_out"}, {op.getM(), "M"}});
  if (failed(args))
    return failure();
  ctx.addKey("precision", stringifySolvePrecision(op.getPrecision()));

  Location loc = op.getLoc();
  TunedKernel tuned = op.getSafeGate() ? TunedKernel::interSolveSafe
                                       : TunedKernel::interSolve;
  if (op.getPrecision() == SolvePrecision::ieee)
    tuned = TunedKernel::interSolveIEEEMerge;
  const KernelTuning tuning = withKTileWidth(
      ctx,
      tuningOf(ctx, tuned,
               getKernelShape({op.getQ(), op.getG(), op.getAqkOut()},
                              op.getCuSeqlens())),
      cast<RankedTensorType>(op.getQ().getType()).getDimSize(3));
  lowerChunkStage(ctx, loc, *args, op.getCuSeqlens(), tuning,
                  op.getChunkSize(), [&](ChunkKernel &kernel) {
                    InterSolveKernel body(kernel, loc, *args, op, tuning);
                    body.aqkOut = args->argument(kernel.kernel, 6);
                    body.m = args->argument(kernel.kernel, 7);
                    // fla's off-diagonal dots have fp32 operands at Triton's
                    // default precision (tf32); the merge dots use the op's
                    // precision.
                    body.offDiagPrecision = tile::Precision::tf32;
                    body.mergePrecision = toTilePrecision(op.getPrecision());
                    body.build();
                  });
  return success();
}
