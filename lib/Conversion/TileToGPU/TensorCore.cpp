//===- TensorCore.cpp - matmuls on tensor cores in a thread block ---------===//
//
// Fragment layouts of mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// (PTX ISA), with g = lane / 4 and t = lane % 4:
//   A (16x8):  a0 = A[g][t],   a1 = A[g+8][t],  a2 = A[g][t+4], a3 = A[g+8][t+4]
//   B (8x8):   b0 = B[t][g],   b1 = B[t+4][g]
//   C (16x8):  c0 = C[g][2t],  c1 = C[g][2t+1], c2 = C[g+8][2t], c3 = C[g+8][2t+1]
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

#include "kda/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace {

/// The frame both lowerings share: the lane coordinates g = lane / 4 and
/// t = lane % 4, and a loop in which the block's warps take the 16x8 tiles
/// of the [m, n] output in turn. The rewriter is left at the start of the
/// loop body; row0 and col0 are the tile's first row and column.
struct WarpTileLoop {
  Value g, t, row0, col0;
  scf::ForOp loop;
};

WarpTileLoop beginWarpTileLoop(RewriterBase &rewriter, Location loc, int64_t m,
                               int64_t n, int64_t numThreads) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  WarpTileLoop w;
  Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  Value warp = arith::DivUIOp::create(rewriter, loc, tid, cst(32));
  Value lane = arith::RemUIOp::create(rewriter, loc, tid, cst(32));
  w.g = arith::DivUIOp::create(rewriter, loc, lane, cst(4));
  w.t = arith::RemUIOp::create(rewriter, loc, lane, cst(4));
  int64_t tilesN = n / 8;
  w.loop = scf::ForOp::create(rewriter, loc, warp, cst((m / 16) * tilesN),
                              cst(numThreads / 32));
  rewriter.setInsertionPointToStart(w.loop.getBody());
  Value tile = w.loop.getInductionVar();
  w.row0 = arith::MulIOp::create(
      rewriter, loc, arith::DivUIOp::create(rewriter, loc, tile, cst(tilesN)),
      cst(16));
  w.col0 = arith::MulIOp::create(
      rewriter, loc, arith::RemUIOp::create(rewriter, loc, tile, cst(tilesN)),
      cst(8));
  return w;
}

/// The operands of a matmul on memrefs, C[m, n] += A[m, k] B[k, n], with
/// their types; `valid` when all three are statically shaped memrefs.
struct MatmulOperands {
  Value a, b, c;
  MemRefType aType, bType, cType;
  int64_t m = 0, n = 0, k = 0;
  bool valid = false;

  explicit MatmulOperands(linalg::MatmulOp op)
      : a(op.getDpsInputs()[0]), b(op.getDpsInputs()[1]),
        c(op.getDpsInits()[0]) {
    aType = dyn_cast<MemRefType>(a.getType());
    bType = dyn_cast<MemRefType>(b.getType());
    cType = dyn_cast<MemRefType>(c.getType());
    valid = op.hasPureBufferSemantics() && aType && bType && cType &&
            aType.hasStaticShape() && bType.hasStaticShape() &&
            cType.hasStaticShape();
    if (valid) {
      m = cType.getDimSize(0);
      n = cType.getDimSize(1);
      k = aType.getDimSize(1);
    }
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
  Value acc = vector::FromElementsOp::create(
      rewriter, loc, accType,
      ValueRange{load(c, rg, c2t), load(c, rg, c2t1), load(c, rg8, c2t),
                 load(c, rg8, c2t1)});

  auto kLoop = scf::ForOp::create(rewriter, loc, cst(0), cst(k), cst(8),
                                  ValueRange{acc});
  rewriter.setInsertionPointToStart(kLoop.getBody());
  Value kk = kLoop.getInductionVar();
  Value kt = add(kk, t), kt4 = add(kk, t4);
  Value aFrag = vector::FromElementsOp::create(
      rewriter, loc, VectorType::get({4, 1}, f32),
      ValueRange{load(a, rg, kt), load(a, rg8, kt), load(a, rg, kt4),
                 load(a, rg8, kt4)});
  Value bFrag = vector::FromElementsOp::create(
      rewriter, loc, VectorType::get({2, 1}, f32),
      ValueRange{load(b, kt, cg), load(b, kt4, cg)});
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
  if (!(elem.isBF16() || elem.isF16()) ||
      mm.bType.getElementType() != elem || !mm.cType.getElementType().isF32())
    return false;
  // A plain matmul: identity maps (no transposed or broadcast variants).
  if (op.getIndexingMapsArray() != op.getDefaultIndexingMaps(op.getContext()))
    return false;
  return mm.m % 16 == 0 && mm.n % 8 == 0 && mm.k % 16 == 0;
}

void kda::lowerMatmulTo16BitMmaSync(RewriterBase &rewriter, linalg::MatmulOp op,
                                    int64_t numThreads) {
  Location loc = op.getLoc();
  MatmulOperands mm(op);
  Value a = mm.a, b = mm.b, c = mm.c;
  int64_t m = mm.m, n = mm.n, k = mm.k;
  Type elem = mm.aType.getElementType();
  const bool bf16 = elem.isBF16();
  rewriter.setInsertionPoint(op);

  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(rewriter, loc, x, y).getResult();
  };
  WarpTileLoop w = beginWarpTileLoop(rewriter, loc, m, n, numThreads);
  Value g = w.g, row0 = w.row0, col0 = w.col0;
  scf::ForOp tileLoop = w.loop;
  Value t2 = arith::MulIOp::create(rewriter, loc, w.t, cst(2));
  Value rg = add(row0, g), rg8 = add(rg, cst(8));
  Value cg = add(col0, g);
  Value c2t = add(col0, t2), c2t1 = add(c2t, cst(1));

  auto load = [&](Value mem, Value i, Value j) {
    return memref::LoadOp::create(rewriter, loc, mem, ValueRange{i, j})
        .getResult();
  };
  // One mma register: two 16-bit elements, the first in the low half; bf16
  // pairs travel as i32, f16 pairs as vector<2xf16> (what NVVM expects).
  auto pair = [&](Value lo, Value hi) -> Value {
    auto vecType = VectorType::get({2}, elem);
    Value v = vector::FromElementsOp::create(rewriter, loc, vecType,
                                             ValueRange{lo, hi});
    if (!bf16)
      return v;
    Value asInt = vector::BitCastOp::create(
        rewriter, loc, VectorType::get({1}, rewriter.getI32Type()), v);
    return vector::ExtractOp::create(rewriter, loc, asInt,
                                     ArrayRef<int64_t>{0});
  };
  Type f32 = rewriter.getF32Type();
  SmallVector<Value> acc;
  acc.push_back(load(c, rg, c2t));
  acc.push_back(load(c, rg, c2t1));
  acc.push_back(load(c, rg8, c2t));
  acc.push_back(load(c, rg8, c2t1));

  auto kLoop = scf::ForOp::create(rewriter, loc, cst(0), cst(k), cst(16), acc);
  rewriter.setInsertionPointToStart(kLoop.getBody());
  Value kk = kLoop.getInductionVar();
  Value k2t = add(kk, t2), k2t1 = add(k2t, cst(1));
  Value k2t8 = add(k2t, cst(8)), k2t9 = add(k2t, cst(9));
  // Loads in a fixed order (not as arguments of one call, whose evaluation
  // order C++ leaves open).
  auto aPair = [&](Value row, Value col, Value colNext) {
    Value lo = load(a, row, col);
    Value hi = load(a, row, colNext);
    return pair(lo, hi);
  };
  auto bPair = [&](Value row, Value rowNext) {
    Value lo = load(b, row, cg);
    Value hi = load(b, rowNext, cg);
    return pair(lo, hi);
  };
  SmallVector<Value> aRegs, bRegs;
  aRegs.push_back(aPair(rg, k2t, k2t1));
  aRegs.push_back(aPair(rg8, k2t, k2t1));
  aRegs.push_back(aPair(rg, k2t8, k2t9));
  aRegs.push_back(aPair(rg8, k2t8, k2t9));
  bRegs.push_back(bPair(k2t, k2t1));
  bRegs.push_back(bPair(k2t8, k2t9));
  auto resultType = LLVM::LLVMStructType::getLiteral(
      rewriter.getContext(), SmallVector<Type>(4, f32));
  NVVM::MMATypes ptxType = bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  Value mma = NVVM::MmaOp::create(
      rewriter, loc, resultType, aRegs, bRegs, kLoop.getRegionIterArgs(),
      ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> next;
  for (int64_t i = 0; i < 4; ++i)
    next.push_back(LLVM::ExtractValueOp::create(rewriter, loc, mma, i));
  scf::YieldOp::create(rewriter, loc, next);

  rewriter.setInsertionPointAfter(kLoop);
  ValueRange result = kLoop.getResults();
  memref::StoreOp::create(rewriter, loc, result[0], c, ValueRange{rg, c2t});
  memref::StoreOp::create(rewriter, loc, result[1], c, ValueRange{rg, c2t1});
  memref::StoreOp::create(rewriter, loc, result[2], c, ValueRange{rg8, c2t});
  memref::StoreOp::create(rewriter, loc, result[3], c, ValueRange{rg8, c2t1});
  rewriter.setInsertionPointAfter(tileLoop);
  rewriter.eraseOp(op);
}
