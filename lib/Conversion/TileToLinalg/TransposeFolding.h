//===- TransposeFolding.h - transposes read through indexing maps -*- C++ -*-===//

#ifndef KDA_LIB_CONVERSION_TILETOLINALG_TRANSPOSEFOLDING_H
#define KDA_LIB_CONVERSION_TILETOLINALG_TRANSPOSEFOLDING_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::kda {

/// Adds a pattern that makes a linalg.generic (on tensors) read the input
/// of a linalg.transpose operand directly, through the operand's indexing
/// map with its results permuted, so the transposed tile is never stored.
///
/// ```mlir
/// %t = linalg.transpose ins(%x : tensor<16x32xf32>) outs(...) permutation = [1, 0]
/// linalg.generic {indexing_maps = [affine_map<(k, i, j) -> (k, i)>, ...]} ins(%t, ...)
/// // becomes
/// linalg.generic {indexing_maps = [affine_map<(k, i, j) -> (i, k)>, ...]} ins(%x, ...)
/// ```
void populateFoldTransposeIntoGenericPatterns(RewritePatternSet &patterns);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_TILETOLINALG_TRANSPOSEFOLDING_H
