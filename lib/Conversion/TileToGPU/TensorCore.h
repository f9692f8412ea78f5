//===- TensorCore.h - matmuls on tensor cores in a thread block -*- C++ -*-===//

#ifndef KDA_LIB_CONVERSION_TILETOGPU_TENSORCORE_H
#define KDA_LIB_CONVERSION_TILETOGPU_TENSORCORE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kda {

/// Returns true if `op` (on memrefs) can run on tf32 tensor cores: marked
/// `tile.tf32`, f32 operands, static shapes with M % 16 == 0, N % 8 == 0 and
/// K % 8 == 0, and a block of whole warps.
bool canUseTF32MmaSync(linalg::MatmulOp op, int64_t numThreads);

/// Replaces `op` by warp-level `mma.sync.m16n8k8` (tf32) code: the block's
/// warps take 16x8 output tiles in turn, load their fragments from the
/// operand buffers, accumulate over K in registers and store the tile back.
/// Does not add the trailing barrier.
void lowerMatmulToTF32MmaSync(RewriterBase &rewriter, linalg::MatmulOp op,
                              int64_t numThreads);

/// Returns true if `op` (on memrefs) can run on 16-bit tensor cores: bf16
/// or f16 operands (both the same type), an f32 accumulator, static shapes
/// with M % 16 == 0, N % 8 == 0 and K % 16 == 0, and a block of whole
/// warps. The products of 16-bit operands are exact in f32, so this needs
/// no precision marker.
bool canUse16BitMmaSync(linalg::MatmulOp op, int64_t numThreads);

/// The warp tile of a 16-bit mma.sync matmul of an m x n result over
/// `numThreads` threads, as (16-row strips, 8-column tiles): as many tiles
/// on one A fragment as divide n, then two strips on each B fragment, as
/// long as every warp still gets a tile.
std::pair<int64_t, int64_t> warpTileOf16BitMmaSync(int64_t m, int64_t n,
                                                   int64_t numThreads);

/// The number of those warp tiles in an m x n result (the trip count of
/// the lowering's tile loop, summed over the warps).
int64_t numWarpTilesOf16BitMmaSync(int64_t m, int64_t n, int64_t numThreads);

/// Replaces `op` by warp-level `mma.sync.m16n8k16` (bf16 or f16 operands,
/// f32 accumulator) code, with the same distribution of 16x8 output tiles
/// over the block's warps as the tf32 lowering. Does not add the trailing
/// barrier.
void lowerMatmulTo16BitMmaSync(RewriterBase &rewriter, linalg::MatmulOp op,
                               int64_t numThreads);

/// The attribute that marks a matmul whose accumulator is known to be zero
/// on entry: its tensor-core lowering starts from zero registers instead of
/// loading the accumulator.
constexpr llvm::StringLiteral kZeroAccumulatorAttr = "kda.zero_accumulator";

/// Marks every matmul of `func` that will run on tensor cores and whose
/// accumulator buffer was last written by a zero fill, with nothing in
/// between that touches the buffer's bytes, and erases that fill: the mma
/// code writes every element of the accumulator, so the zeros need not go
/// through shared memory.
void foldZeroAccumulatorFills(Operation *func, int64_t numThreads);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_TILETOGPU_TENSORCORE_H
