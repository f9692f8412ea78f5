//===- TileUtils.h - helpers shared by the tile lowerings -------*- C++ -*-===//

#ifndef KDA_DIALECT_TILE_TILEUTILS_H
#define KDA_DIALECT_TILE_TILEUTILS_H

#include "kda/Dialect/Tile/TileDialect.h"
#include "kda/Dialect/Tile/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"

namespace mlir::kda::tile {

/// Emits `lhs kind rhs` on scalars (float or integer; max and min are the
/// NaN-propagating float forms and the signed integer forms).
Value emitCombine(OpBuilder &b, Location loc, CombineKind kind, Value lhs,
                  Value rhs);

/// The f32 scalar `value` rounded to tf32 (10 mantissa bits): to nearest,
/// ties away from zero, as cvt.rna.tf32.f32 does (the low 13 bits cleared
/// after adding half of their range).
Value emitRoundToTF32(OpBuilder &b, Location loc, Value value);

/// The neutral element of `kind` for scalars of `type`: 0 for add, -inf /
/// +inf (floats) or the smallest / largest signed value for max / min.
TypedAttr getCombineIdentity(Builder &b, CombineKind kind, Type type);

/// Writes into each buffer of `outputs` the inverse (I + L)^-1 of the
/// unit lower part L of the matching buffer of `inputs` (square f32
/// memrefs) by forward substitution, one column of one matrix at a time
/// with the column in registers (SSA values: the rows are unrolled):
/// thread `threadId` of `numThreads` takes column c of matrix m when
/// (m * n + c) mod numThreads == threadId, so the columns of all the
/// matrices are spread over the threads. With `transposedOutputs`, each
/// output holds the inverse transposed (column c in row c), so that a
/// thread's column is one contiguous row, written by wide stores. Adds no
/// barrier.
void emitUnitLowerInverses(OpBuilder &b, Location loc, ValueRange inputs,
                           ValueRange outputs, Value threadId,
                           int64_t numThreads, bool transposedOutputs = false);

/// Replaces `op` (on buffers) by emitUnitLowerInverses of its inputs into
/// its inits. With one thread (threadId 0) it is the sequential form. Adds
/// no barrier.
void lowerUnitLowerInverse(RewriterBase &rewriter, UnitLowerInverseOp op,
                           Value threadId, int64_t numThreads);

/// Lowers every tile.unit_lower_inverse in `root` with
/// lowerUnitLowerInverse, the thread id built by `threadId` before each
/// op; fails (with an error naming `pass`) on one that is not bufferized.
LogicalResult lowerUnitLowerInverses(
    RewriterBase &rewriter, Operation *root, int64_t numThreads,
    function_ref<Value(OpBuilder &, Location)> threadId, StringRef pass);

/// The permutation of `op`: result dimension i is input dimension perm[i]
/// (without a `permutation` attribute, the dimensions reversed).
SmallVector<int64_t> getTransPermutation(TransOp op);

/// The unit attribute convert-tile-to-simt puts on the kernels it lowers:
/// their shared-memory accesses are ordered by the gpu.barrier ops in them
/// (convert-tile-to-gpu then shares bytes between two buffers only across
/// such a barrier).
constexpr llvm::StringLiteral kExplicitBarriersAttrName =
    "kda.explicit_barriers";

/// A coalesced layout for a 1-D or 2-D tile of `type` (sizes powers of 2)
/// over `numWarps` warps: up to 16 bytes per lane along the last
/// dimension, lanes along it and then along the first, warps along the
/// first dimension and then the last (warps left over hold copies).
DistLayoutAttr getCoalescedLayout(RankedTensorType type, int64_t numWarps);

/// A layout for a tile of `type` (sizes powers of 2) scanned along `dim`
/// over `numWarps` warps, such that no scan crosses warps: for a 2-D tile
/// scanned along its first dimension, up to 16 bytes per lane along the
/// last, the warps along the last, then lanes along the last and the rest
/// along the first (warps left over hold copies). Other tiles take the
/// coalesced layout.
DistLayoutAttr getScanLayout(RankedTensorType type, int64_t dim,
                             int64_t numWarps);

/// True if an op in `kernel` makes a tile with a #tile.dist layout (a tile
/// held in registers).
bool hasLaidOutTiles(Operation *kernel);

/// True if `a` and `b` are distinct arguments of one kernel: tile kernels
/// take their buffers like `__restrict__` pointers (the launch plan never
/// passes one buffer twice), so they do not overlap.
bool distinctKernelArguments(Value a, Value b);

} // namespace mlir::kda::tile

#endif // KDA_DIALECT_TILE_TILEUTILS_H
