//===- VectorStores.h - tile stores as 16-byte vector stores ----*- C++ -*-===//

#ifndef KDA_LIB_CONVERSION_TILETOGPU_VECTORSTORES_H
#define KDA_LIB_CONVERSION_TILETOGPU_VECTORSTORES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kda {

/// True if vectorizeTileStore rewrites `copy` (its threads then touch the
/// shared tile by pieces, not by the elementwise schedule of linalg ops).
bool isVectorizableTileStore(linalg::CopyOp copy);

/// If `copy` is a tile store (a `linalg.copy` from a statically shaped
/// shared buffer, whole or its leading corner, into a global memref of rank
/// 1 or 2 with unit innermost stride; after shared-memory packing), wraps it
/// in `scf.if` on a run-time check that the global pieces are aligned, and
/// fills the then branch with the block's threads copying 16-byte (or 8-,
/// 4-byte) pieces: one vector load from shared memory and one vector store
/// to global memory per piece, element by element only for a piece that the
/// box cuts. `copy` stays in the else branch, for the caller to distribute
/// like any linalg op. Returns false (and changes nothing) if `copy` is not
/// such a store.
bool vectorizeTileStore(RewriterBase &rewriter, linalg::CopyOp copy,
                        int64_t numThreads);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_TILETOGPU_VECTORSTORES_H
