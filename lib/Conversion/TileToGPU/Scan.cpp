//===- Scan.cpp - tile scans as per-thread sequential loops ---------------===//

#include "Scan.h"

#include "kda/Dialect/Tile/TileOps.h"
#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::kda::tile;

/// The scan description attached by --convert-tile-to-linalg.
static DictionaryAttr getScanInfo(linalg::GenericOp op) {
  return op->getAttrOfType<DictionaryAttr>(TileDialect::getScanAttrName());
}

bool kda::isMarkedScan(linalg::GenericOp op) {
  DictionaryAttr info = getScanInfo(op);
  if (!info || !op.hasPureBufferSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1)
    return false;
  auto in = dyn_cast<MemRefType>(op.getDpsInputs()[0].getType());
  auto out = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  return in && out && in.hasStaticShape() && in.getShape() == out.getShape() &&
         info.getAs<IntegerAttr>("dim") && info.getAs<CombineKindAttr>("kind") &&
         info.getAs<BoolAttr>("reverse");
}


void kda::lowerScanToThreadLoops(RewriterBase &rewriter, linalg::GenericOp op,
                                 int64_t numThreads) {
  Location loc = op.getLoc();
  DictionaryAttr info = getScanInfo(op);
  int64_t dim = info.getAs<IntegerAttr>("dim").getInt();
  CombineKind kind = info.getAs<CombineKindAttr>("kind").getValue();
  bool reverse = info.getAs<BoolAttr>("reverse").getValue();
  Value in = op.getDpsInputs()[0], out = op.getDpsInits()[0];
  auto type = cast<MemRefType>(in.getType());
  Type elementType = type.getElementType();

  // The lines: every index of the other dimensions.
  SmallVector<int64_t> lineShape;
  int64_t numLines = 1;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != dim) {
      lineShape.push_back(type.getDimSize(d));
      numLines *= type.getDimSize(d);
    }
  int64_t length = type.getDimSize(dim);

  rewriter.setInsertionPoint(op);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  auto lines = scf::ForOp::create(rewriter, loc, tid, cst(numLines),
                                  cst(numThreads));
  rewriter.setInsertionPointToStart(lines.getBody());
  SmallVector<Value> lineIndex;
  if (lineShape.empty()) {
    // A 1-D scan: a single line.
  } else if (lineShape.size() == 1) {
    lineIndex.push_back(lines.getInductionVar());
  } else {
    auto delin = affine::AffineDelinearizeIndexOp::create(
        rewriter, loc, lines.getInductionVar(), lineShape);
    lineIndex.assign(delin.getResults().begin(), delin.getResults().end());
  }

  Value identity = arith::ConstantOp::create(
      rewriter, loc, getCombineIdentity(rewriter, kind, elementType));
  auto steps = scf::ForOp::create(rewriter, loc, cst(0), cst(length), cst(1),
                                  ValueRange{identity});
  rewriter.setInsertionPointToStart(steps.getBody());
  Value i = steps.getInductionVar();
  if (reverse)
    i = arith::SubIOp::create(rewriter, loc, cst(length - 1), i);
  SmallVector<Value> index;
  for (int64_t d = 0, j = 0; d < type.getRank(); ++d)
    index.push_back(d == dim ? i : lineIndex[j++]);
  Value x = memref::LoadOp::create(rewriter, loc, in, index);
  Value prefix = emitCombine(rewriter, loc, kind,
                               steps.getRegionIterArgs()[0], x);
  Value init = memref::LoadOp::create(rewriter, loc, out, index);
  Value result = emitCombine(rewriter, loc, kind, init, prefix);
  memref::StoreOp::create(rewriter, loc, result, out, index);
  scf::YieldOp::create(rewriter, loc, prefix);
  rewriter.setInsertionPointAfter(lines);
  rewriter.eraseOp(op);
}
