//===- IntraDiagKernel.cpp - kda.intra_diag as a tile kernel --------------===//
//
// The diagonal 16x16 sub-chunk blocks of Aqk and Akk (Stage 2): one program
// per (chunk, batch * value head), numbered along the grid's x axis. Each
// program handles the NC = BT / 16 sub-chunks of its chunk in turn, in an
// scf.for over those that have rows (those whose first row is past the
// sequence end are skipped), and, for sub-chunk s with rows [s0, s0 + n),
//
//  1. accumulates the [16, 16] blocks S_qk[i, j] = sum_d q_i,d k_j,d
//     2^(G_i,d - G_j,d) and S_kk (k for q) over K tiles of BK columns:
//     - exact path (fla's token-parallel kernel): over the [BK, BC, BC]
//       space of columns and row pairs (i, j), the decays 2^(G_i - G_j) are
//       formed elementwise in f32 and the products summed along K
//       (tile.reduce on rank-3 tiles, into which the broadcasts and the
//       math fuse), and the sums of pairs other than n > i >= j are dropped
//       (they may overflow: the select discards them); no reference row,
//       so any g <= 0 is exact, gates at -1000 included;
//     - exact path, factored where bounded (convert-kda-to-tile's
//       exact-diagonal-factoring): when the sub-chunk's gate drop R =
//       max_d (G_s0,d - G_last,d) is at most kFactoringRange (the check is
//       a loop of scalar loads, uniform over the program), the decays are
//       factored through the reference row rho as on the safe_gate path,
//       with tf32x3 dots (about f32), but S_qk at tf32 for 16-bit I/O:
//       every factor lies in [2^-R, 2^R] (G does not increase), so none
//       overflows or leaves the normal range, and 2 x 16 exponentials per
//       column replace 256; otherwise (steep gates, gates at -1000, NaN)
//       the pairwise path above runs;
//     - exact path by key rows (exact-diagonal-rows, or on registers): the
//       sub-chunk's rows in two halves of 8 and per key row j a [8, BK]
//       tile of 2^(G_i,d - G_j,d) against the rows i of each half at or
//       below j (j < 8: both, j >= 8: the bottom one: 3/4 of the work of
//       the whole block), summed along d into column j, masked, scaled and
//       stored half by half (steps 2 and 4 below, on [8, 16] tiles); the
//       same as the factored path's fallback (the scf.if's two branches
//       each mask, scale and store their own blocks);
//     - safe_gate (fla's intra_sub_chunk kernel): with the gate gn of the
//       reference row rho = s0 + min(8, n - 1), S_qk = (q 2^(G - gn)) .
//       (k 2^(gn - G))^T and S_kk likewise, as tf32 tile.dots (fla's
//       default precision of fp32-operand dots); rows >= n are zeroed;
//  2. masks and scales: Aqk = scale * tril0(S_qk), Akk = diag(beta) *
//     tril-1(S_kk), zeros above the diagonal;
//  3. with safe_gate, replaces Akk by D = (I + Akk)^-1 (unit diagonal,
//     zeros above) with tile.unit_lower_inverse (rows past the sequence
//     end are 0 in Akk and give identity rows);
//  4. stores the Aqk block at columns [16 s, 16 s + 16) of Aqk (the rest of
//     Aqk is left unwritten, as in fla: key partial=Aqk) and the block into
//     all 16 columns of Akkd, rows >= the sequence end dropped.
//
// Rows past the sequence end read as 0 and are never stored; accumulators
// are f32 and Aqk is cast to the I/O dtype (Akkd is f32).
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

/// The body of one intra_diag program.
struct IntraDiagKernel : SubChunkKernelBody {
  using SubChunkKernelBody::SubChunkKernelBody;

  /// The exact path factors the decays through the reference row where the
  /// sub-chunk's gate drop allows (StageContext::exactDiagonalFactoring).
  bool exactFactoring = false;

  /// The exact path's pairwise decays by key rows, in 2-D tiles
  /// (StageContext::exactDiagonalRows): over the lower triangle in halves
  /// of kHalf rows, alone or as the factored path's fallback.
  bool exactRows = false;

  /// Rows of a half block on the halves path.
  static constexpr int64_t kHalf = kBC / 2;

  /// Largest gate drop max_d (G_first,d - G_last,d) over a sub-chunk, in
  /// log2 units, for which the exact path factors its decays: factors stay
  /// within [2^-64, 2^64], far from the f32 range's ends, so q and k of any
  /// magnitude up to 2^60 multiply them without overflow.
  static constexpr double kFactoringRange = 64.0;

  /// Offset of the safe_gate reference row from the sub-chunk start (fla's
  /// middle row), clamped to the last valid row of a short tail.
  static constexpr int64_t kReferenceRow = 8;

  RankedTensorType blockType() { return t.tileOf({kBC, kBC}, t.f32()); }

  /// The [BK] f32 tile of row `row`, columns [col, col + BK) of a
  /// [B, T, heads, K] buffer at head `h`; columns >= K read as 0 (the row
  /// itself is always before the sequence end).
  Value loadRow(Value source, Value row, Value h, Value col) {
    auto elem = cast<MemRefType>(source.getType()).getElementType();
    Value tile = tile::LoadOp::create(
        b(), loc(), t.tileOf({bk}, elem), source,
        ValueRange{batch, row, h, col}, ValueRange{t.index(kDim)},
        b().getDenseI64ArrayAttr({3}), nullptr);
    return t.toF32(tile);
  }

  /// The sums along d of q_i,d k_j,d 2^(G_i,d - G_j,d) and of k_i,d k_j,d
  /// 2^(G_i,d - G_j,d) for every row pair (i, j) of the transposed [BK,
  /// rows] tiles `qs`, `ks` and `gs`: two [rows, rows] tiles, the decays
  /// formed once over the [BK, rows, rows] space and shared by both.
  std::pair<Value, Value> pairwiseDecayedSums(Value qs, Value ks, Value gs) {
    int64_t rows = cast<RankedTensorType>(qs.getType()).getDimSize(1);
    SmallVector<int64_t> pairShape{bk, rows, rows};
    auto asRowI = [&](Value x) { return t.broadcast(x, 2, pairShape); };
    auto asRowJ = [&](Value x) { return t.broadcast(x, 1, pairShape); };
    Value kDecayed =
        t.mul(asRowJ(ks), t.exp2(t.sub(asRowI(gs), asRowJ(gs))));
    return {t.sum(t.mul(asRowI(qs), kDecayed), 0),
            t.sum(t.mul(asRowI(ks), kDecayed), 0)};
  }

  /// Stores the [rows, cols] tile `value` at rows [row, ...) and columns
  /// [col, ...) of the [B, T, heads, width] buffer `dest` at the program's
  /// head; rows >= the sequence end are dropped.
  void storeRows(Value value, Value dest, Value row, Value col,
                 int64_t width) {
    tile::StoreOp::create(b(), loc(), value, dest,
                          ValueRange{batch, row, head, col},
                          ValueRange{rowEnd, t.index(width)},
                          b().getDenseI64ArrayAttr({1, 3}));
  }

  /// Exact path: the K tile at `col` added to the accumulators (S_qk, S_kk)
  /// of the sub-chunk at `row0` with `n` valid rows (n <= BC). Over the
  /// [BK (d), BC (i), BC (j)] space of columns and row pairs, the decays
  /// 2^(G_i,d - G_j,d) multiply q_i,d k_j,d and k_i,d k_j,d, summed along
  /// d; the sums of the pairs other than n > i >= j are then replaced by 0
  /// (so no exponent of an unwritten or later row counts; their sums may
  /// be inf or NaN, which the select discards). The broadcasts and the
  /// elementwise math fuse into the two sums: no [BK, BC, BC] tile is
  /// stored. The operands are written as transposed [BK, BC] tiles; the
  /// lowering folds the transposes into the sums' indexing maps, so the
  /// loaded [BC, BK] tiles are read in place (rows padded against bank
  /// conflicts), 4 consecutive d per 16-byte shared-memory load.
  /// i1 tile of shape [rows, kBC] for the rows [first, first + rows) of a
  /// block: true where the row is before `n` and the column j is at most
  /// the row plus `diagonal` (0: tril0, -1: tril-1).
  Value halfMask(int64_t first, int64_t rows, Value n, int64_t diagonal) {
    SmallVector<int64_t> shape{rows, kBC};
    Type i32 = b().getI32Type();
    RankedTensorType ids = t.tileOf(shape, i32);
    Value rowIds = tile::IotaOp::create(b(), loc(), ids, 0);
    Value colIds = tile::IotaOp::create(b(), loc(), ids, 1);
    Value offset = tile::SplatOp::create(
        b(), loc(), ids,
        arith::ConstantOp::create(b(), loc(),
                                  b().getI32IntegerAttr(first + diagonal)));
    // j <= (first + r) + diagonal, as j - r <= first + diagonal.
    Value lower = arith::CmpIOp::create(
        b(), loc(), arith::CmpIPredicate::sle,
        arith::SubIOp::create(b(), loc(), colIds, rowIds), offset);
    Value left = arith::SubIOp::create(b(), loc(), n, t.index(first));
    return t.andI(t.indexMask(shape, 0, left, arith::CmpIPredicate::slt),
                  lower);
  }

  /// Exact path by key rows over the lower triangle (the halves path): the
  /// K tile at `col` added to the accumulators (S_qk, S_kk of the top rows
  /// [0, kHalf), then of the bottom rows [kHalf, kBC); [kHalf, BC] each)
  /// of the sub-chunk at `row0` with `n` valid rows. The rows j < kHalf
  /// update both halves; the rows j >= kHalf only the bottom one, whose
  /// rows are the only ones at or below them: 3/4 of the key-row path's
  /// [BC, BK] work, the same sums.
  SmallVector<Value> exactHalvesKStep(Value row0, Value n, Value col,
                                      ValueRange acc) {
    Value row8 = arith::AddIOp::create(b(), loc(), row0, t.index(kHalf));
    struct Half {
      Value q, k, g, pairs;
    };
    Half top{loadRows(q, row0, qkHead, col, kHalf),
             loadRows(k, row0, qkHead, col, kHalf),
             loadRows(G, row0, head, col, kHalf), halfMask(0, kHalf, n, 0)};
    Half bottom{loadRows(q, row8, qkHead, col, kHalf),
                loadRows(k, row8, qkHead, col, kHalf),
                loadRows(G, row8, head, col, kHalf),
                halfMask(kHalf, kHalf, n, 0)};
    SmallVector<int64_t> rowsShape{kHalf, bk}, halfShape{kHalf, kBC};
    // One trip per key row j in [first, last): the decayed row j against
    // the rows of each half in `halves`, summed into column j.
    auto rowLoop = [&](Value first, Value last, ArrayRef<const Half *> halves,
                       ValueRange init) {
      auto loop = scf::ForOp::create(b(), loc(), first, last, t.index(1),
                                     ValueRange(init));
      OpBuilder::InsertionGuard guard(b());
      b().setInsertionPointToStart(loop.getBody());
      Value j = loop.getInductionVar();
      Value rowJ = arith::AddIOp::create(b(), loc(), row0, j);
      Value kRow = loadRow(k, rowJ, qkHead, col);
      Value gRow = loadRow(G, rowJ, head, col);
      Value isJ = t.indexMask(halfShape, 1, j, arith::CmpIPredicate::eq);
      Value kJ = t.broadcast(kRow, 0, rowsShape);
      Value gJ = t.broadcast(gRow, 0, rowsShape);
      SmallVector<Value> next;
      ValueRange carried = loop.getRegionIterArgs();
      for (auto [i, half] : llvm::enumerate(halves)) {
        Value kDecayed = t.mul(kJ, t.exp2(t.sub(half->g, gJ)));
        Value column = t.andI(half->pairs, isJ);
        Value sqk =
            t.broadcast(t.sum(t.mul(half->q, kDecayed), 1), 1, halfShape);
        Value skk =
            t.broadcast(t.sum(t.mul(half->k, kDecayed), 1), 1, halfShape);
        next.push_back(t.add(carried[2 * i], t.keep(column, sqk)));
        next.push_back(t.add(carried[2 * i + 1], t.keep(column, skk)));
      }
      scf::YieldOp::create(b(), loc(), next);
      return loop;
    };
    Value split = arith::MinSIOp::create(b(), loc(), n, t.index(kHalf));
    auto both = rowLoop(t.index(0), split, {&top, &bottom}, acc);
    auto lower = rowLoop(split, n, {&bottom},
                         ValueRange{both.getResult(2), both.getResult(3)});
    return {both.getResult(0), both.getResult(1), lower.getResult(0),
            lower.getResult(1)};
  }

  SmallVector<Value> exactKStep(Value row0, Value n, Value col,
                                ValueRange acc) {
    Value qs = t.trans(loadRows(q, row0, qkHead, col));
    Value ks = t.trans(loadRows(k, row0, qkHead, col));
    Value gs = t.trans(loadRows(G, row0, head, col));
    // The pairs outside n > i >= j are dropped after the sums (the mask
    // depends on (i, j) only, so it is applied once per pair, not once per
    // column; their sums may be inf or NaN, which the select discards).
    auto [sqk, skk] = pairwiseDecayedSums(qs, ks, gs);
    SmallVector<int64_t> blockShape{kBC, kBC};
    Value rowsIn = t.indexMask(blockShape, 0, n, arith::CmpIPredicate::slt);
    Value pairs = t.andI(rowsIn, t.lowerMask(kBC, 0));
    return {t.add(acc[0], t.keep(pairs, sqk)),
            t.add(acc[1], t.keep(pairs, skk))};
  }

  /// safe_gate path (and the exact path's factored case): the K tile at
  /// `col` added to (S_qk, S_kk) by dots at `precision` (tf32 on the
  /// safe_gate path, fla's default for fp32-operand dots; see
  /// factoredPrecision for the exact path) of tiles rescaled by the gate
  /// `gn` of the reference row `rho`; rows >= n are zeroed (their
  /// exponents are not bounded).
  SmallVector<Value> factoredKStep(Value row0, Value n, Value rho, Value col,
                                   ValueRange acc,
                                   std::pair<tile::Precision, tile::Precision>
                                       precision) {
    Value qs = loadRows(q, row0, qkHead, col);
    Value ks = loadRows(k, row0, qkHead, col);
    Value gs = loadRows(G, row0, head, col);
    SmallVector<int64_t> shape{kBC, bk};
    Value gn = t.broadcast(loadRow(G, rho, head, col), 0, shape);
    Value rowsIn = t.indexMask(shape, 0, n, arith::CmpIPredicate::slt);
    Value up = t.keep(rowsIn, t.exp2(t.sub(gs, gn)));
    Value down = t.keep(rowsIn, t.exp2(t.sub(gn, gs)));
    Value kt = t.trans(t.mul(ks, down));
    Value sqk = t.dot(t.mul(qs, up), kt, acc[0], precision.first);
    Value skk = t.dot(t.mul(ks, up), kt, acc[1], precision.second);
    return {sqk, skk};
  }

  /// Precisions of the exact path's factored dots (S_qk, S_kk), each as
  /// fine as what its result is stored in: Aqk in the I/O type, so tf32 at
  /// 16-bit I/O (a tf32 operand keeps 10 bits of mantissa, as many as f16
  /// and more than bf16 store) and tf32x3 (about f32) at f32 I/O; Akkd in
  /// f32, so tf32x3. (S_kk at tf32 left the whole forward's errors as they
  /// were at bf16 I/O, but Akkd then misses its f32 check: 2.7e-4 against
  /// the 2e-6 of intra-diag-fixed.mlir.)
  std::pair<tile::Precision, tile::Precision> factoredPrecision() {
    return {ioType.isF32() ? tile::Precision::tf32x3 : tile::Precision::tf32,
            tile::Precision::tf32x3};
  }

  /// The gate drop of the rows [first, last] of a sub-chunk: max over the K
  /// columns d of G_first,d - G_last,d, as an f32 scalar (NaN when a gate
  /// is NaN). A loop of scalar loads that every thread runs alike.
  Value gateDrop(Value first, Value last) {
    Type f32 = b().getF32Type();
    Value zero = arith::ConstantOp::create(b(), loc(), b().getF32FloatAttr(0));
    auto loop = scf::ForOp::create(b(), loc(), t.index(0), t.index(kDim),
                                   t.index(1), ValueRange{zero});
    OpBuilder::InsertionGuard guard(b());
    b().setInsertionPointToStart(loop.getBody());
    Value d = loop.getInductionVar();
    auto gateAt = [&](Value row) -> Value {
      Value x = memref::LoadOp::create(b(), loc(), G,
                                       ValueRange{batch, row, head, d});
      if (x.getType() != f32)
        x = arith::ExtFOp::create(b(), loc(), f32, x);
      return x;
    };
    Value drop = arith::SubFOp::create(b(), loc(), gateAt(first), gateAt(last));
    scf::YieldOp::create(
        b(), loc(),
        ValueRange{arith::MaximumFOp::create(b(), loc(),
                                             loop.getRegionIterArgs()[0],
                                             drop)});
    return loop.getResult(0);
  }

  /// Whether the sub-chunk whose rows start at `row0` (its last at offset
  /// `last`) may factor its decays: its gate drop is at most
  /// kFactoringRange (false for NaN).
  Value isFactorable(Value row0, Value last) {
    Value lastRow = arith::AddIOp::create(b(), loc(), row0, last);
    Value bound = arith::ConstantOp::create(
        b(), loc(), b().getF32FloatAttr(kFactoringRange));
    return arith::CmpFOp::create(b(), loc(), arith::CmpFPredicate::OLE,
                                 gateDrop(row0, lastRow), bound);
  }

  /// (S_qk, S_kk) of a sub-chunk: an scf.for over K tiles whose body is
  /// `step(col, acc)`.
  SmallVector<Value> accumulateOverK(
      function_ref<SmallVector<Value>(Value, ValueRange)> step) {
    return accumulateOverK(step, {{kBC, kBC}, {kBC, kBC}});
  }
  /// The same with accumulators of the given shapes (zeros at first).
  SmallVector<Value>
  accumulateOverK(function_ref<SmallVector<Value>(Value, ValueRange)> step,
                  ArrayRef<SmallVector<int64_t>> shapes) {
    SmallVector<Value> init;
    for (ArrayRef<int64_t> shape : shapes)
      init.push_back(t.zeros(shape));
    auto kLoop = scf::ForOp::create(b(), loc(), t.index(0), t.index(kDim),
                                    t.index(bk), init);
    OpBuilder::InsertionGuard guard(b());
    b().setInsertionPointToStart(kLoop.getBody());
    scf::YieldOp::create(b(), loc(),
                         step(kLoop.getInductionVar(),
                              kLoop.getRegionIterArgs()));
    return SmallVector<Value>(kLoop.getResults());
  }

  /// The halves path's blocks: (S_qk, S_kk) of the top and of the bottom
  /// rows, masked and scaled like the whole blocks below (Aqk = scale *
  /// tril0, Akk = diag(beta) * tril-1) and stored half by half.
  void buildHalves(Value row0, Value col0, Value n) {
    SmallVector<Value> sums = accumulateOverK(
        [&](Value col, ValueRange acc) {
          return exactHalvesKStep(row0, n, col, acc);
        },
        {{kHalf, kBC}, {kHalf, kBC}, {kHalf, kBC}, {kHalf, kBC}});
    for (int64_t half = 0; half < 2; ++half) {
      int64_t first = half * kHalf;
      Value row =
          arith::AddIOp::create(b(), loc(), row0, t.index(first));
      RankedTensorType type = t.tileOf({kHalf, kBC}, t.f32());
      Value aqkHalf = t.mul(t.keep(halfMask(first, kHalf, n, 0), sums[2 * half]),
                            t.splat(type, scale));
      Value betaRows =
          t.broadcast(loadBeta(row, kHalf), 1, {kHalf, kBC});
      Value akkHalf = t.mul(
          t.keep(halfMask(first, kHalf, n, -1), sums[2 * half + 1]), betaRows);
      storeRows(t.toElement(aqkHalf, ioType), aqk, row, col0, bt);
      storeRows(akkHalf, akkd, row, t.index(0), kBC);
    }
  }

  /// Computes and stores the blocks of sub-chunk `s` (an index value; the
  /// sub-chunk has rows).
  void buildSubChunk(Value s) {
    Value col0 = arith::MulIOp::create(b(), loc(), s, t.index(kBC));
    Value row0 = arith::AddIOp::create(b(), loc(), rowStart, col0);
    Value left = arith::SubIOp::create(b(), loc(), rowEnd, row0);
    Value n = arith::MinSIOp::create(b(), loc(), left, t.index(kBC));
    Value rho;
    Value last = arith::SubIOp::create(b(), loc(), n, t.index(1));
    if (safeGate || exactFactoring) {
      Value offset =
          arith::MinSIOp::create(b(), loc(), last, t.index(kReferenceRow));
      rho = arith::AddIOp::create(b(), loc(), row0, offset);
    }

    if (exactRows && !exactFactoring && !safeGate) {
      buildHalves(row0, col0, n);
      return;
    }
    // 1. S_qk and S_kk over K tiles.
    auto exactSums = [&]() {
      return accumulateOverK([&](Value col, ValueRange acc) {
        return exactKStep(row0, n, col, acc);
      });
    };
    auto factoredSums =
        [&](std::pair<tile::Precision, tile::Precision> precision) {
      return accumulateOverK([&](Value col, ValueRange acc) {
        return factoredKStep(row0, n, rho, col, acc, precision);
      });
    };

    // Factored where the gate drop allows, by key rows in halves elsewhere:
    // each branch masks, scales and stores its own blocks, so that the
    // halves path's [8, BK] tiles are not live beside the factored dots.
    if (exactRows && exactFactoring && !safeGate) {
      auto choice = scf::IfOp::create(b(), loc(), TypeRange{},
                                      isFactorable(row0, last),
                                      /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b());
      b().setInsertionPointToStart(&choice.getThenRegion().front());
      finishBlocks(factoredSums(factoredPrecision()), row0, col0);
      b().setInsertionPointToStart(&choice.getElseRegion().front());
      buildHalves(row0, col0, n);
      return;
    }

    SmallVector<Value> sums;
    if (safeGate) {
      sums = factoredSums({tile::Precision::tf32, tile::Precision::tf32});
    } else if (exactFactoring) {
      Type block = blockType();
      auto choice = scf::IfOp::create(b(), loc(), TypeRange{block, block},
                                      isFactorable(row0, last),
                                      /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard guard(b());
        b().setInsertionPointToStart(&choice.getThenRegion().front());
        scf::YieldOp::create(b(), loc(),
                             factoredSums(factoredPrecision()));
        b().setInsertionPointToStart(&choice.getElseRegion().front());
        scf::YieldOp::create(b(), loc(), exactSums());
      }
      sums = {choice.getResult(0), choice.getResult(1)};
    } else {
      sums = exactSums();
    }

    finishBlocks(sums, row0, col0);
  }

  /// Steps 2-4 of a sub-chunk whose rows start at `row0`, from its
  /// (S_qk, S_kk) `sums`.
  void finishBlocks(ArrayRef<Value> sums, Value row0, Value col0) {
    // 2. Aqk = scale * tril0(S_qk); Akk = diag(beta) * tril-1(S_kk).
    Value aqkBlock = t.mul(t.keep(t.lowerMask(kBC, 0), sums[0]),
                           t.splat(blockType(), scale));
    Value betaRows = t.broadcast(loadBeta(row0), 1, {kBC, kBC});
    Value akkBlock =
        t.mul(t.keep(t.lowerMask(kBC, -1), sums[1]), betaRows);

    // 3. safe_gate: Akkd holds D = (I + Akk)^-1.
    if (safeGate)
      akkBlock = t.unitLowerInverse(akkBlock).front();

    // 4. Stores, rows >= the sequence end dropped.
    storeRows(t.toElement(aqkBlock, ioType), aqk, row0, col0, bt);
    storeRows(akkBlock, akkd, row0, t.index(0), kBC);
  }

  /// One iteration of an scf.for per sub-chunk that has rows: min(NC,
  /// ceil(rows left in the chunk / BC)) of them (a loop rather than NC
  /// unrolled copies keeps the GPU kernel small).
  void build() {
    Value left = arith::SubIOp::create(b(), loc(), rowEnd, rowStart);
    Value withRows = ceilDiv(b(), loc(), left, kBC);
    Value count =
        arith::MinSIOp::create(b(), loc(), withRows, t.index(numSub));
    auto loop =
        scf::ForOp::create(b(), loc(), t.index(0), count, t.index(1));
    OpBuilder::InsertionGuard guard(b());
    b().setInsertionPointToStart(loop.getBody());
    buildSubChunk(loop.getInductionVar());
  }
};

} // namespace

LogicalResult kda::lowerStage(IntraDiagOp op, StageContext &ctx) {
  // Kernel arguments: q, k, G, beta, Aqk, Akkd, [cu_seqlens].
  FailureOr<KernelArguments> args = declareSubChunkArguments(ctx, op, {});
  if (failed(args))
    return failure();
  // Aqk outside the diagonal 16x16 blocks is left unwritten (like fla).
  ctx.addKey("partial", "Aqk");

  Location loc = op.getLoc();
  const bool safeGate = op.getSafeGate();
  const KernelTuning tuning = withKTileWidth(
      ctx,
      tuningOf(ctx, safeGate ? TunedKernel::intraDiagSafe
                             : TunedKernel::intraDiagExact),
      cast<RankedTensorType>(op.getQ().getType()).getDimSize(3));
  lowerChunkStage(ctx, loc, *args, op.getCuSeqlens(), tuning,
                  op.getChunkSize(), [&](ChunkKernel &kernel) {
                    IntraDiagKernel body(kernel, loc, *args, op, tuning);
                    body.exactFactoring = ctx.exactDiagonalFactoring;
                    // The register mapping takes 2-D tiles only: there the
                    // exact path forms its decays by key rows.
                    body.exactRows =
                        ctx.exactDiagonalRows ||
                        tuning.mapping == TileMapping::registers;
                    body.build();
                  });
  return success();
}
