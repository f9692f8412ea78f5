//===- TransposeFolding.cpp - transposes read through indexing maps -------===//
//
// The exact diagonal blocks use q, k and g transposed ([K, rows]) in a
// reduction over K. A transpose stored as its own tile costs a pass over
// shared memory (and a barrier) per operand; reading the original tile
// through a permuted map costs nothing.
//
//===----------------------------------------------------------------------===//

#include "TransposeFolding.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

namespace {

struct FoldTransposeIntoGeneric : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto transpose = input->get().getDefiningOp<linalg::TransposeOp>();
      if (!transpose || !transpose.hasPureTensorSemantics())
        continue;
      // result[i] = input[perm[i]]: the map into the input has result
      // perm[i] equal to the map into the transpose's result i.
      AffineMap map = op.getMatchingIndexingMap(input);
      ArrayRef<int64_t> perm = transpose.getPermutation();
      SmallVector<AffineExpr> results(map.getNumResults());
      for (auto [i, p] : llvm::enumerate(perm))
        results[p] = map.getResult(i);
      AffineMap folded = AffineMap::get(map.getNumDims(), map.getNumSymbols(),
                                        results, op.getContext());
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      maps[input->getOperandNumber()] = folded;
      rewriter.modifyOpInPlace(op, [&] {
        input->set(transpose.getInput());
        op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      });
      return success();
    }
    return failure();
  }
};

} // namespace

void mlir::kda::populateFoldTransposeIntoGenericPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FoldTransposeIntoGeneric>(patterns.getContext());
}
