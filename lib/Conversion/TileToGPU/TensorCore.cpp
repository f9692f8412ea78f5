//===- TensorCore.cpp - matmuls on tensor cores in a thread block ---------===//
//
// Fragment layouts of mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// (PTX ISA), with g = lane / 4 and t = lane % 4:
//   A (16x8):  a0 = A[g][t],   a1 = A[g+8][t],  a2 = A[g][t+4], a3 =
//   A[g+8][t+4] B (8x8):   b0 = B[t][g],   b1 = B[t+4][g] C (16x8):  c0 =
//   C[g][2t],  c1 = C[g][2t+1], c2 = C[g+8][2t], c3 = C[g+8][2t+1]
//
//
// and of mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32,
// each register holding two consecutive 16-bit elements (the lower index
// in the low half):
//   A (16x16): a0 = A[g][2t..2t+1],   a1 = A[g+8][2t..2t+1],
//              a2 = A[g][2t+8..2t+9], a3 = A[g+8][2t+8..2t+9]
//   B (16x8):  b0 = B[2t..2t+1][g],   b1 = B[2t+8..2t+9][g]
//   C (16x8):  as above.
//
//===----------------------------------------------------------------------===//

#include "TensorCore.h"
#include "AsyncCopies.h"
#include "Barriers.h"
#include "MatmulEpilogues.h"
#include "MatmulPrologues.h"
#include "SharedMemory.h"

#include "kda/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

/// With at most this many 16x8 accumulator tiles per warp, a 16-bit
/// matmul's K loop runs two sets of accumulators on alternate K steps of
/// 16 (when K is a multiple of 32 and at least 64; measured on the state
/// scan's dots, K = 128 and 64 with 4 tiles per warp).
static constexpr int64_t kSplitKMaxTiles = 4;

namespace {

/// The frame both lowerings share: the lane coordinates g = lane / 4 and
/// t = lane % 4, the lane itself, and a loop in which the block's warps
/// take the 16 x `width` tiles of the [m, n] output in turn. The rewriter
/// is left at the start of the loop body; row0 and col0 are the tile's
/// first row and column.
struct WarpTileLoop {
  Value g, t, lane, row0, col0;
  scf::ForOp loop;
};

WarpTileLoop beginWarpTileLoop(RewriterBase &rewriter, Location loc, int64_t m,
                               int64_t n, int64_t numThreads, int64_t width = 8,
                               int64_t height = 16) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  WarpTileLoop w;
  Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  Value warp = arith::DivUIOp::create(rewriter, loc, tid, cst(32));
  Value lane = arith::RemUIOp::create(rewriter, loc, tid, cst(32));
  w.lane = lane;
  w.g = arith::DivUIOp::create(rewriter, loc, lane, cst(4));
  w.t = arith::RemUIOp::create(rewriter, loc, lane, cst(4));
  int64_t tilesN = n / width;
  w.loop = scf::ForOp::create(rewriter, loc, warp, cst((m / height) * tilesN),
                              cst(numThreads / 32));
  rewriter.setInsertionPointToStart(w.loop.getBody());
  Value tile = w.loop.getInductionVar();
  w.row0 = arith::MulIOp::create(
      rewriter, loc, arith::DivUIOp::create(rewriter, loc, tile, cst(tilesN)),
      cst(height));
  w.col0 = arith::MulIOp::create(
      rewriter, loc, arith::RemUIOp::create(rewriter, loc, tile, cst(tilesN)),
      cst(width));
  return w;
}

/// The operands of a matmul on memrefs, C[m, n] += A[m, k] B[k, n], with
/// their types; `transA` when the memref given for A holds A^T ([k, m],
/// read through the map (m, n, k) -> (k, m)), `transB` when it holds B^T
/// ([n, k]). `valid` when all three are statically shaped memrefs and the
/// maps are one of these four plain or transposed forms.
struct MatmulOperands {
  Value a, b, c;
  MemRefType aType, bType, cType;
  int64_t m = 0, n = 0, k = 0;
  bool transA = false, transB = false;
  bool valid = false;

  explicit MatmulOperands(linalg::MatmulOp op)
      : a(op.getDpsInputs()[0]), b(op.getDpsInputs()[1]),
        c(op.getDpsInits()[0]) {
    aType = dyn_cast<MemRefType>(a.getType());
    bType = dyn_cast<MemRefType>(b.getType());
    cType = dyn_cast<MemRefType>(c.getType());
    valid = op.hasPureBufferSemantics() && aType && bType && cType &&
            aType.hasStaticShape() && bType.hasStaticShape() &&
            cType.hasStaticShape() && readMaps(op);
    if (valid) {
      m = cType.getDimSize(0);
      n = cType.getDimSize(1);
      k = aType.getDimSize(transA ? 0 : 1);
    }
  }

private:
  bool readMaps(linalg::MatmulOp op) {
    MLIRContext *ctx = op.getContext();
    AffineExpr dm, dn, dk;
    bindDims(ctx, dm, dn, dk);
    auto map = [&](AffineExpr x, AffineExpr y) {
      return AffineMap::get(3, 0, {x, y}, ctx);
    };
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    if (maps.size() != 3 || maps[2] != map(dm, dn))
      return false;
    transA = maps[0] == map(dk, dm);
    transB = maps[1] == map(dn, dk);
    return (transA || maps[0] == map(dm, dk)) &&
           (transB || maps[1] == map(dk, dn));
  }
};

} // namespace

bool kda::canUseTF32MmaSync(linalg::MatmulOp op, int64_t numThreads) {
  MatmulOperands mm(op);
  if (!op->hasAttr(tile::TileDialect::getTF32AttrName()) ||
      numThreads % 32 != 0 || !mm.valid)
    return false;
  if (!mm.aType.getElementType().isF32() ||
      !mm.bType.getElementType().isF32() || !mm.cType.getElementType().isF32())
    return false;
  return mm.m % 16 == 0 && mm.n % 8 == 0 && mm.k % 8 == 0;
}

void kda::lowerMatmulToTF32MmaSync(RewriterBase &rewriter, linalg::MatmulOp op,
                                   int64_t numThreads) {
  Location loc = op.getLoc();
  MatmulOperands mm(op);
  Value a = mm.a, b = mm.b, c = mm.c;
  int64_t m = mm.m, n = mm.n, k = mm.k;
  rewriter.setInsertionPoint(op);

  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(rewriter, loc, x, y).getResult();
  };
  WarpTileLoop w = beginWarpTileLoop(rewriter, loc, m, n, numThreads);
  Value g = w.g, t = w.t, row0 = w.row0, col0 = w.col0;
  scf::ForOp tileLoop = w.loop;
  Value g8 = add(g, cst(8));
  Value t4 = add(t, cst(4));
  Value t2 = arith::MulIOp::create(rewriter, loc, t, cst(2));
  Value t21 = add(t2, cst(1));
  Value rg = add(row0, g), rg8 = add(row0, g8);
  Value cg = add(col0, g);
  Value c2t = add(col0, t2), c2t1 = add(col0, t21);

  auto load = [&](Value mem, Value i, Value j) {
    return memref::LoadOp::create(rewriter, loc, mem, ValueRange{i, j})
        .getResult();
  };
  Type f32 = rewriter.getF32Type();
  auto accType = VectorType::get({2, 2}, f32);
  SmallVector<Value> accInit;
  if (op->hasAttr(kda::kZeroAccumulatorAttr)) {
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getF32FloatAttr(0.0f));
    accInit.assign(4, zero);
  } else {
    accInit = {load(c, rg, c2t), load(c, rg, c2t1), load(c, rg8, c2t),
               load(c, rg8, c2t1)};
  }
  Value acc = vector::FromElementsOp::create(rewriter, loc, accType, accInit);

  // ldmatrix reads 8x8 blocks of 16-bit elements, i.e. 8 rows of 4 f32:
  // A's four blocks (rows 0-7 / 8-15, k 0-3 / 4-7) are a0..a3, and B^T's
  // two blocks (n 0-7, k 0-3 / 4-7) are b0, b1. Lane l addresses row l % 8
  // of block l / 8.
  // ldmatrix reads 8x8 blocks of 16-bit halves: an f32 tile qualifies
  // when its rows of 4 elements start on 16-byte boundaries.
  auto byLdmatrix = [](MemRefType type) {
    return type.getRank() == 2 && type.getElementTypeBitWidth() == 32 &&
           kda::hasSixteenByteRows(type);
  };
  bool aByLdmatrix = !mm.transA && byLdmatrix(mm.aType);
  bool bByLdmatrix = mm.transB && byLdmatrix(mm.bType);
  Value quad = arith::DivUIOp::create(rewriter, loc, w.lane, cst(8));
  Value octRow = arith::RemUIOp::create(rewriter, loc, w.lane, cst(8));
  Value aRowOff = add(
      octRow, arith::MulIOp::create(
                  rewriter, loc,
                  arith::RemUIOp::create(rewriter, loc, quad, cst(2)), cst(8)));
  Value aColOff = arith::MulIOp::create(
      rewriter, loc, arith::DivUIOp::create(rewriter, loc, quad, cst(2)),
      cst(4));
  Value bColOff = arith::MulIOp::create(
      rewriter, loc, arith::RemUIOp::create(rewriter, loc, quad, cst(2)),
      cst(4));

  auto kLoop = scf::ForOp::create(rewriter, loc, cst(0), cst(k), cst(8),
                                  ValueRange{acc});
  rewriter.setInsertionPointToStart(kLoop.getBody());
  Value kk = kLoop.getInductionVar();
  Value kt = add(kk, t), kt4 = add(kk, t4);
  auto ldmatrix = [&](Value mem, Value i, Value j, int64_t tiles) {
    return nvgpu::LdMatrixOp::create(
               rewriter, loc, VectorType::get({tiles, 1}, f32), mem,
               ValueRange{i, j}, rewriter.getBoolAttr(false),
               rewriter.getI32IntegerAttr(tiles))
        .getResult();
  };
  // Element (i, j) of A and of B, wherever their memrefs hold it.
  auto loadA = [&](Value i, Value j) {
    return mm.transA ? load(a, j, i) : load(a, i, j);
  };
  auto loadB = [&](Value i, Value j) {
    return mm.transB ? load(b, j, i) : load(b, i, j);
  };
  Value aFrag;
  if (aByLdmatrix) {
    aFrag = ldmatrix(a, add(row0, aRowOff), add(kk, aColOff), 4);
  } else {
    Value a0 = loadA(rg, kt), a1 = loadA(rg8, kt);
    Value a2 = loadA(rg, kt4), a3 = loadA(rg8, kt4);
    aFrag = vector::FromElementsOp::create(rewriter, loc,
                                           VectorType::get({4, 1}, f32),
                                           ValueRange{a0, a1, a2, a3});
  }
  Value bFrag;
  if (bByLdmatrix) {
    bFrag = ldmatrix(b, add(col0, octRow), add(kk, bColOff), 2);
  } else {
    Value b0 = loadB(kt, cg), b1 = loadB(kt4, cg);
    bFrag = vector::FromElementsOp::create(
        rewriter, loc, VectorType::get({2, 1}, f32), ValueRange{b0, b1});
  }
  Value next = nvgpu::MmaSyncOp::create(
      rewriter, loc, aFrag, bFrag, kLoop.getRegionIterArgs()[0],
      ArrayRef<int64_t>{16, 8, 8}, /*tf32Enabled=*/true);
  scf::YieldOp::create(rewriter, loc, next);

  rewriter.setInsertionPointAfter(kLoop);
  Value result = kLoop.getResult(0);
  auto store = [&](int64_t i, int64_t j, Value row, Value col) {
    Value v = vector::ExtractOp::create(rewriter, loc, result,
                                        ArrayRef<int64_t>{i, j});
    memref::StoreOp::create(rewriter, loc, v, c, ValueRange{row, col});
  };
  store(0, 0, rg, c2t);
  store(0, 1, rg, c2t1);
  store(1, 0, rg8, c2t);
  store(1, 1, rg8, c2t1);
  rewriter.setInsertionPointAfter(tileLoop);
  rewriter.eraseOp(op);
}

bool kda::canUse16BitMmaSync(linalg::MatmulOp op, int64_t numThreads) {
  MatmulOperands mm(op);
  if (numThreads % 32 != 0 || !mm.valid)
    return false;
  Type elem = mm.aType.getElementType();
  if (!(elem.isBF16() || elem.isF16()) || mm.bType.getElementType() != elem ||
      !mm.cType.getElementType().isF32())
    return false;
  return mm.m % 16 == 0 && mm.n % 8 == 0 && mm.k % 16 == 0;
}

/// True if 8x8 blocks of 16-bit elements of `type` (a shared-memory tile)
/// can be read by ldmatrix: every row of 8 elements starts on a 16-byte
/// boundary.
static bool ldmatrixCanRead(MemRefType type) {
  return type.getRank() == 2 && type.getElementTypeBitWidth() == 16 &&
         kda::hasSixteenByteRows(type);
}

std::pair<int64_t, int64_t> kda::warpTileOf16BitMmaSync(int64_t m, int64_t n,
                                                        int64_t numThreads) {
  // Each warp takes (16 * mTiles) x (8 * nTiles) tiles: the A fragment of
  // a K step is loaded once for nTiles mma.sync, each B fragment once for
  // mTiles. As wide as divides n while every warp still gets a tile.
  int64_t numWarps = numThreads / 32;
  int64_t nTiles = 1;
  for (int64_t candidate : {4, 2}) {
    if ((n / 8) % candidate == 0 &&
        (m / 16) * (n / 8 / candidate) >= numWarps) {
      nTiles = candidate;
      break;
    }
  }
  // Two strips stacked (32 rows) where every warp still gets a tile: the B
  // fragments of a K step then serve two A fragments.
  int64_t mTiles =
      (m % 32 == 0 && (m / 32) * (n / 8 / nTiles) >= numWarps) ? 2 : 1;
  return {mTiles, nTiles};
}

int64_t kda::numWarpTilesOf16BitMmaSync(int64_t m, int64_t n,
                                        int64_t numThreads) {
  auto [mTiles, nTiles] = warpTileOf16BitMmaSync(m, n, numThreads);
  return (m / (16 * mTiles)) * (n / (8 * nTiles));
}

void kda::lowerMatmulTo16BitMmaSync(RewriterBase &rewriter, linalg::MatmulOp op,
                                    int64_t numThreads) {
  Location loc = op.getLoc();
  MatmulOperands mm(op);
  Value c = mm.c;
  int64_t m = mm.m, n = mm.n;
  Type elem = mm.aType.getElementType();
  // The matmuls this lowering runs, in order, on one set of accumulator
  // registers: `op` and the matmuls chained to it.
  SmallVector<linalg::MatmulOp> chain = matmulChainOf(op);
  // (Found before this lowering inserts anything in front of `op`.)
  linalg::GenericOp prologue = fusedPrologueOf(op);
  const bool bf16 = elem.isBF16();
  rewriter.setInsertionPoint(op);

  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(rewriter, loc, x, y).getResult();
  };
  auto [mTiles, nTiles] = warpTileOf16BitMmaSync(m, n, numThreads);
  WarpTileLoop w = beginWarpTileLoop(rewriter, loc, m, n, numThreads,
                                     8 * nTiles, 16 * mTiles);
  Value g = w.g, col0 = w.col0;
  scf::ForOp tileLoop = w.loop;
  Value t2 = arith::MulIOp::create(rewriter, loc, w.t, cst(2));
  // First row of each 16-row strip, and the rows g and g + 8 in it.
  SmallVector<Value> rows0, rgs, rg8s;
  for (int64_t i = 0; i < mTiles; ++i) {
    rows0.push_back(add(w.row0, cst(16 * i)));
    rgs.push_back(add(rows0.back(), g));
    rg8s.push_back(add(rgs.back(), cst(8)));
  }

  auto load = [&](Value mem, Value i, Value j) {
    return memref::LoadOp::create(rewriter, loc, mem, ValueRange{i, j})
        .getResult();
  };
  // One mma register: two 16-bit elements, the first in the low half; bf16
  // pairs travel as i32, f16 pairs as vector<2xf16> (what NVVM expects).
  auto asRegister = [&](Value v) -> Value {
    if (!bf16)
      return v;
    Value asInt = vector::BitCastOp::create(
        rewriter, loc, VectorType::get({1}, rewriter.getI32Type()), v);
    return vector::ExtractOp::create(rewriter, loc, asInt,
                                     ArrayRef<int64_t>{0});
  };
  auto pair = [&](Value lo, Value hi) -> Value {
    auto vecType = VectorType::get({2}, elem);
    return asRegister(vector::FromElementsOp::create(rewriter, loc, vecType,
                                                     ValueRange{lo, hi}));
  };
  // Registers of an ldmatrix result vector<N x 2 x elem>.
  auto ldmatrix = [&](Value mem, Value i, Value j, int64_t tiles,
                      bool transpose) {
    auto type = VectorType::get({tiles, 2}, elem);
    Value frag = nvgpu::LdMatrixOp::create(
        rewriter, loc, type, mem, ValueRange{i, j},
        rewriter.getBoolAttr(transpose), rewriter.getI32IntegerAttr(tiles));
    SmallVector<Value> regs;
    for (int64_t r = 0; r < tiles; ++r)
      regs.push_back(asRegister(vector::ExtractOp::create(
          rewriter, loc, frag, ArrayRef<int64_t>{r})));
    return regs;
  };
  // ldmatrix lane addresses: lane l gives row l % 8 of 8x8 block l / 8.
  Value quad = arith::DivUIOp::create(rewriter, loc, w.lane, cst(8));
  Value octRow = arith::RemUIOp::create(rewriter, loc, w.lane, cst(8));
  // Lanes 8-15 and 24-31 address the second 8 rows (or columns) of a pair
  // of blocks.
  Value halfOff = arith::MulIOp::create(
      rewriter, loc, arith::RemUIOp::create(rewriter, loc, quad, cst(2)),
      cst(8));
  Value aRowOff = add(octRow, halfOff);
  Value aColOff = arith::MulIOp::create(
      rewriter, loc, arith::DivUIOp::create(rewriter, loc, quad, cst(2)),
      cst(8));
  // B (k x n, n contiguous) by ldmatrix.trans: blocks 0 and 1 are k rows
  // 0-7 and 8-15, so lanes 0-15 address rows like A's blocks 0 and 1.
  Value bRowOff = aRowOff;

  Type f32 = rewriter.getF32Type();
  SmallVector<Value> cols, cols1, acc;
  for (int64_t j = 0; j < nTiles; ++j) {
    Value c2t = add(add(col0, cst(8 * j)), t2);
    cols.push_back(c2t);
    cols1.push_back(add(c2t, cst(1)));
  }
  if (op->hasAttr(kda::kZeroAccumulatorAttr)) {
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getF32FloatAttr(0.0f));
    acc.assign(4 * mTiles * nTiles, zero);
  } else {
    // Accumulator registers: four per (strip i, tile j), at 4 (i nTiles + j),
    // loaded from C or computed by C's fused prologue.
    auto initial = [&](Value row, Value col) {
      return prologue ? emitPrologueElement(rewriter, loc, prologue, row, col)
                      : load(c, row, col);
    };
    for (int64_t i = 0; i < mTiles; ++i) {
      for (int64_t j = 0; j < nTiles; ++j) {
        acc.push_back(initial(rgs[i], cols[j]));
        acc.push_back(initial(rgs[i], cols1[j]));
        acc.push_back(initial(rg8s[i], cols[j]));
        acc.push_back(initial(rg8s[i], cols1[j]));
      }
    }
  }

  // The K loop of one matmul of the chain, from accumulator registers
  // `init`; returns the registers after it.
  auto buildKLoop = [&](linalg::MatmulOp part,
                        ValueRange init) -> SmallVector<Value> {
    MatmulOperands mm(part);
    Value a = mm.a, b = mm.b;
    int64_t k = mm.k;
    bool aByLdmatrix = ldmatrixCanRead(mm.aType);
    bool bByLdmatrix = ldmatrixCanRead(mm.bType);
    // With few tiles per warp, the accumulators' chain along K (each
    // mma.sync waits for the previous one on its registers) is what the
    // warp waits on: two sets of accumulators then take alternate K steps
    // of 16, and are added after the loop.
    const int64_t numAcc = 4 * mTiles * nTiles;
    const bool splitK =
        mTiles * nTiles <= kSplitKMaxTiles && k % 32 == 0 && k >= 64;
    SmallVector<Value> loopInit(init);
    if (splitK) {
      Value zero = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getF32FloatAttr(0.0f));
      loopInit.append(numAcc, zero);
    }
    OpBuilder::InsertionGuard guard(rewriter);
    auto kLoop = scf::ForOp::create(rewriter, loc, cst(0), cst(k),
                                    cst(splitK ? 32 : 16), loopInit);
    rewriter.setInsertionPointToStart(kLoop.getBody());
    // One K step of 16 at `kk` on the accumulators `accIn`; returns the
    // accumulators after it.
    auto kStep = [&](Value kk, ValueRange accIn) -> SmallVector<Value> {
      Value k2t = add(kk, t2), k2t1 = add(k2t, cst(1));
      Value k2t8 = add(k2t, cst(8)), k2t9 = add(k2t, cst(9));
      // Loads in a fixed order (not as arguments of one call, whose evaluation
      // order C++ leaves open).
      // Element (i, j) of A and of B, wherever their memrefs hold it.
      auto loadA = [&](Value i, Value j) {
        return mm.transA ? load(a, j, i) : load(a, i, j);
      };
      auto loadB = [&](Value i, Value j) {
        return mm.transB ? load(b, j, i) : load(b, i, j);
      };
      auto aPair = [&](Value row, Value col, Value colNext) {
        Value lo = loadA(row, col);
        Value hi = loadA(row, colNext);
        return pair(lo, hi);
      };
      auto bPair = [&](Value row, Value rowNext, Value col) {
        Value lo = loadB(row, col);
        Value hi = loadB(rowNext, col);
        return pair(lo, hi);
      };
      // A fragments of strip i.
      auto aFragments = [&](int64_t i) {
        Value row0 = rows0[i], rg = rgs[i], rg8 = rg8s[i];
        SmallVector<Value> regs;
        if (aByLdmatrix && mm.transA) {
          // A^T [k, m] in memory: the same four 8x8 blocks of A, each read
          // transposed; lane l addresses k row l % 8 of block l / 8.
          regs = ldmatrix(a, add(add(kk, aColOff), octRow), add(row0, halfOff),
                          4, true);
        } else if (aByLdmatrix) {
          regs = ldmatrix(a, add(row0, aRowOff), add(kk, aColOff), 4, false);
        } else {
          regs.push_back(aPair(rg, k2t, k2t1));
          regs.push_back(aPair(rg8, k2t, k2t1));
          regs.push_back(aPair(rg, k2t8, k2t9));
          regs.push_back(aPair(rg8, k2t8, k2t9));
        }
        return regs;
      };
      // B fragments of tile j.
      auto bFragments = [&](int64_t j) {
        Value tileCol = add(col0, cst(8 * j));
        SmallVector<Value> regs;
        if (bByLdmatrix && mm.transB) {
          // B^T [n, k] in memory: its 8x8 blocks (n, k) and (n, k + 8) read
          // as they are give B's fragments.
          regs = ldmatrix(b, add(tileCol, octRow), add(kk, halfOff), 2, false);
        } else if (bByLdmatrix) {
          regs = ldmatrix(b, add(kk, bRowOff), tileCol, 2, true);
        } else {
          Value cg = add(tileCol, g);
          regs.push_back(bPair(k2t, k2t1, cg));
          regs.push_back(bPair(k2t8, k2t9, cg));
        }
        return regs;
      };
      SmallVector<SmallVector<Value>> aRegs, bRegs;
      for (int64_t i = 0; i < mTiles; ++i)
        aRegs.push_back(aFragments(i));
      for (int64_t j = 0; j < nTiles; ++j)
        bRegs.push_back(bFragments(j));
      auto resultType = LLVM::LLVMStructType::getLiteral(
          rewriter.getContext(), SmallVector<Type>(4, f32));
      NVVM::MMATypes ptxType =
          bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
      SmallVector<Value> next;
      for (int64_t i = 0; i < mTiles; ++i) {
        for (int64_t j = 0; j < nTiles; ++j) {
          Value mma = NVVM::MmaOp::create(
              rewriter, loc, resultType, aRegs[i], bRegs[j],
              accIn.slice(4 * (i * nTiles + j), 4),
              ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
              std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
              std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                             NVVM::MMALayout::col});
          for (int64_t r = 0; r < 4; ++r)
            next.push_back(LLVM::ExtractValueOp::create(rewriter, loc, mma, r));
        }
      }
      return next;
    };
    ValueRange iterArgs = kLoop.getRegionIterArgs();
    Value kk = kLoop.getInductionVar();
    SmallVector<Value> next = kStep(kk, iterArgs.take_front(numAcc));
    if (splitK)
      llvm::append_range(next,
                         kStep(add(kk, cst(16)), iterArgs.drop_front(numAcc)));
    scf::YieldOp::create(rewriter, loc, next);
    rewriter.setInsertionPointAfter(kLoop);
    SmallVector<Value> results(kLoop.getResults());
    if (!splitK)
      return results;
    SmallVector<Value> sums;
    for (int64_t r = 0; r < numAcc; ++r)
      sums.push_back(arith::AddFOp::create(rewriter, loc, results[r],
                                           results[numAcc + r]));
    return sums;
  };
  SmallVector<Value> result(acc);
  for (linalg::MatmulOp part : chain) {
    result = buildKLoop(part, result);
    // (After the last op that computes the results: with split
    // accumulators the sums follow the loop.)
    rewriter.setInsertionPointAfterValue(result.back());
  }
  // Each accumulator element goes to C, or through the fused epilogue to
  // the epilogue's output.
  linalg::GenericOp epilogue = fusedEpilogueOf(op);
  // The epilogue overwrites an operand: every warp (one tile each) first
  // finishes reading it.
  if (epilogue && epilogueWritesOperand(op))
    gpu::BarrierOp::create(rewriter, loc);
  auto emit = [&](Value value, Value row, Value col) {
    if (epilogue)
      emitEpilogueElement(rewriter, loc, epilogue, c, value, row, col);
    else
      memref::StoreOp::create(rewriter, loc, value, c, ValueRange{row, col});
  };
  for (int64_t i = 0; i < mTiles; ++i) {
    for (int64_t j = 0; j < nTiles; ++j) {
      int64_t base = 4 * (i * nTiles + j);
      emit(result[base], rgs[i], cols[j]);
      emit(result[base + 1], rgs[i], cols1[j]);
      emit(result[base + 2], rg8s[i], cols[j]);
      emit(result[base + 3], rg8s[i], cols1[j]);
    }
  }
  rewriter.setInsertionPointAfter(tileLoop);
  if (epilogue)
    rewriter.eraseOp(epilogue);
  if (prologue)
    rewriter.eraseOp(prologue);
  for (linalg::MatmulOp part : llvm::reverse(chain))
    rewriter.eraseOp(part);
}

void kda::foldZeroAccumulatorFills(Operation *func, int64_t numThreads) {
  SmallVector<linalg::MatmulOp> matmuls;
  func->walk([&](linalg::MatmulOp op) {
    if (canUseTF32MmaSync(op, numThreads) || canUse16BitMmaSync(op, numThreads))
      matmuls.push_back(op);
  });
  for (linalg::MatmulOp op : matmuls) {
    Value acc = op.getDpsInits()[0];
    for (Operation *prev = op->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      if (isMemoryEffectFree(prev))
        continue;
      if (isZeroFillOf(prev, acc)) {
        prev->erase();
        op->setAttr(kZeroAccumulatorAttr, UnitAttr::get(op.getContext()));
        break;
      }
      if (touchesSharedBytesOf(prev, ArrayRef<Value>{acc}))
        break;
    }
  }
}
