//===- KDAVerifyUtils.h - shared shape checks for kda ops -------*- C++ -*-===//
//
// Helpers used by the verifiers of the kda ops. Each returns failure after
// emitting an op error that names the operand and the rule it breaks.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_DIALECT_KDA_KDAVERIFYUTILS_H
#define KDA_DIALECT_KDA_KDAVERIFYUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"

namespace mlir::kda {

/// Checks that `value` is a ranked tensor of rank `rank`; `layout` describes
/// the expected dimensions (e.g. "[B, T, HV, K]").
LogicalResult verifyRank(Operation *op, Value value, StringRef name,
                         int64_t rank, StringRef layout);

/// Checks that dimension `dim` of `value` (named `dimName`) is static.
LogicalResult verifyStaticDim(Operation *op, Value value, StringRef name,
                              int64_t dim, StringRef dimName);

/// Checks that dimension `dim` of `value` equals `expected` when both are
/// static. `what` describes where `expected` comes from.
LogicalResult verifyDimMatches(Operation *op, Value value, StringRef name,
                               int64_t dim, StringRef dimName,
                               int64_t expected, StringRef what);

/// Checks a `cu_seqlens` operand: rank 1, and batch size 1 where static.
LogicalResult verifySeqLens(Operation *op, Value cuSeqlens, int64_t batch);

/// Checks `chunk_size` is 32 or 64.
LogicalResult verifyChunkSize(Operation *op, int64_t chunkSize);

} // namespace mlir::kda

#endif // KDA_DIALECT_KDA_KDAVERIFYUTILS_H
