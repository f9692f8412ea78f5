//===- AsyncCopies.h - tile loads as cp.async copies ------------*- C++ -*-===//

#ifndef KDA_LIB_CONVERSION_TILETOGPU_ASYNCCOPIES_H
#define KDA_LIB_CONVERSION_TILETOGPU_ASYNCCOPIES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::kda {

/// Rewrites the tile loads of `func` (after shared-memory packing, before
/// linalg ops are distributed) into asynchronous global-to-shared copies.
///
/// A tile load is a `linalg.copy` from a global memref of rank 1 or 2 with
/// unit innermost stride into a statically shaped shared buffer F, either
/// the whole of F, or F's leading corner right after a fill of all of F
/// with +0 (a masked load: the box that exists, zero elsewhere). Each
/// thread copies 4-, 8- or 16-byte pieces of F with `cp.async`
/// (`nvgpu.device_async_copy`), reading only the part of each piece that
/// lies inside the box and zero-filling the rest, so the fill is no longer
/// needed.
///
/// Consecutive loads into distinct buffers (separated by side-effect-free
/// ops only) form one group: one barrier before it, all copies in flight
/// together, and one wait and one barrier right before the first op that
/// touches the group's bytes (or at the end of the block), so the ops in
/// between overlap the copies. The copies need the global
/// addresses to be aligned to the piece size, which is known only at run
/// time: the group runs under `scf.if` on that condition, and its else
/// branch keeps the original fills and copies (distributed like any linalg
/// op). A load in a loop of which each thread copies several pieces, from a
/// source whose row stride is dynamic, reads that stride through an inline
/// `mov` tied to the loop's induction variable, so that LLVM recomputes the
/// pieces' addresses in each trip instead of keeping one per piece in
/// registers across the loop.
void lowerTileLoadsToAsyncCopies(gpu::GPUFuncOp func, int64_t numThreads);

/// The shared tile that `view` (one side of a copy whose other side has
/// type `other`) covers: `view` itself if both are statically shaped alike,
/// or the source of `view` if it is a leading corner (a subview at zero
/// offsets with unit strides, of `other`'s rank; `corner` is then set).
/// Null otherwise.
Value tileOfView(Value view, MemRefType other, bool &corner);

/// The largest piece (elements of `elementBytes` bytes making 16, 8 or 4
/// bytes) into which `buffer`'s static layout cuts every row at aligned
/// offsets (buffers start 16-byte aligned); 0 if none, or if `buffer` is not
/// statically shaped with unit innermost stride.
int64_t largestPieceElements(MemRefType buffer, int64_t elementBytes);

/// i1: the run-time pieces of `pieceElements` elements of the global memref
/// `global` (rank 1 or 2, unit innermost stride) start at addresses aligned
/// to the piece size (its start and its row stride are multiples of it).
Value buildPiecesAlignedCondition(OpBuilder &b, Location loc, Value global,
                                  int64_t elementBytes, int64_t pieceElements);

/// True if `op` sets every element of `buffer` to +0 (a linalg.fill or a
/// linalg.map yielding a +0 constant).
bool isZeroFillOf(Operation *op, Value buffer);

/// Erases every gpu.barrier that follows another one with only
/// side-effect-free ops in between.
void removeRedundantBarriers(gpu::GPUFuncOp func);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_TILETOGPU_ASYNCCOPIES_H
