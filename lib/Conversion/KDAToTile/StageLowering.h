//===- StageLowering.h - kda stage ops to tile kernels ----------*- C++ -*-===//
//
// Internal interface of the kda-to-tile conversion: one builder per stage
// op, each adding a tile kernel to the module and a tile.launch to the host.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_LIB_CONVERSION_KDATOTILE_STAGELOWERING_H
#define KDA_LIB_CONVERSION_KDATOTILE_STAGELOWERING_H

#include "kda/Dialect/KDA/KDAOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace mlir::kda {

/// What a stage builder needs from the host-function conversion.
struct StageContext {
  /// The module the kernels are added to.
  ModuleOp module;
  /// Builder positioned in the host function where launches go.
  OpBuilder &host;
  /// Maps tensor values of the kda function to their memrefs; a stage
  /// builder maps its results before it returns.
  IRMapping &buffers;
  /// Returns the memref that holds the tensor result `result` (an output
  /// argument or a workspace allocation).
  function_ref<Value(Value result)> allocateResult;
  /// Unique prefix for kernel names.
  std::string kernelPrefix;
  /// Width of K tiles for stages that tile K (the pass's block-k); 0 lets
  /// each kernel choose (kTileWidth).
  int64_t blockK;
  /// Records the name and dimension symbols of a tensor of the kda function
  /// (used for entry arguments and results in the bundle manifest). `dims`
  /// holds one symbol per dimension; static dimensions are written as their
  /// size instead.
  function_ref<void(Value tensor, StringRef name, ArrayRef<StringRef> dims)>
      describe;
  /// Records a specialization-key entry of the program.
  function_ref<void(StringRef key, StringRef value)> addKey;
};

/// The width of a kernel's K tiles: the pass's block-k, or the kernel's
/// own default when block-k is 0, at most K rounded up to a power of 2.
inline int64_t kTileWidth(const StageContext &ctx, int64_t kernelDefault,
                          int64_t k) {
  int64_t width = ctx.blockK > 0 ? ctx.blockK : kernelDefault;
  return std::min<int64_t>(width,
                           llvm::PowerOf2Ceil(static_cast<uint64_t>(k)));
}

/// kda.l2norm -> one kernel over (16-token blocks, B * H).
LogicalResult lowerL2Norm(L2NormOp op, StageContext &ctx);

/// kda.beta_activation -> one kernel over (64-token blocks, B * HV).
LogicalResult lowerBetaActivation(BetaActivationOp op, StageContext &ctx);

/// kda.gate_cumsum -> one kernel over (K tiles, chunks, B * HV).
LogicalResult lowerGateCumsum(GateCumsumOp op, StageContext &ctx);

/// kda.intra_diag -> one kernel over (chunks, B * HV): the diagonal 16x16
/// sub-chunk blocks of Aqk and Akk (their inverses with safe_gate).
LogicalResult lowerIntraDiag(IntraDiagOp op, StageContext &ctx);

/// kda.inter_solve -> one kernel over (chunks, B * HV): the off-diagonal
/// sub-chunk blocks of Aqk and Akk and M = (I + Akk)^-1 per chunk.
LogicalResult lowerInterSolve(InterSolveOp op, StageContext &ctx);

/// kda.wy_recompute -> one kernel over (chunks, B * HV): w, u and kg.
LogicalResult lowerWYRecompute(WYRecomputeOp op, StageContext &ctx);

/// kda.output -> one kernel over (V tiles, chunks, B * HV): o per chunk.
LogicalResult lowerOutput(OutputOp op, StageContext &ctx);

/// kda.state_scan -> one kernel over (V tiles, N * HV): the state scan over
/// each sequence's chunks, giving h, v_new and the final state.
LogicalResult lowerStateScan(StateScanOp op, StageContext &ctx);

/// kda.state_scan_output -> the state scan's kernel computing each chunk's
/// output from the state entering it: o and the final state, no h or v_new.
LogicalResult lowerStateScanOutput(StateScanOutputOp op, StageContext &ctx);

/// Records key `name` = `size` when the dimension is static (bundles with
/// dynamic head counts have no H / HV key).
inline void addDimKey(StageContext &ctx, StringRef name, int64_t size) {
  if (!ShapedType::isDynamic(size))
    ctx.addKey(name, std::to_string(size));
}

/// Creates an empty tile kernel `name` with the given argument types and
/// threads per program, inserted at the end of `module`; returns it with a
/// builder positioned at its (return-terminated) body start.
func::FuncOp createKernel(ModuleOp module, StringRef name,
                          TypeRange argTypes, int64_t numThreads);

/// ceil(a / b) for index values.
Value ceilDiv(OpBuilder &b, Location loc, Value a, int64_t divisor);

/// Number of chunk programs along T for a `[B, T, ...]` buffer `rows`:
/// ceil(T / BT) for fixed length, or floor(T / BT) + N with `cuSeqlens` (see
/// tile.varlen_chunk).
Value countChunks(OpBuilder &b, Location loc, Value rows, Value cuSeqlens,
                  int64_t bt);

/// The token rows of the chunk handled by a program, along dimension 1 of a
/// `[B, T, ...]` buffer.
struct ChunkRows {
  /// First row of the chunk.
  Value start;
  /// One past the last row of the chunk's sequence (rows >= end are past
  /// the sequence end: they read as 0 and are never stored).
  Value end;
  /// False for programs that own no chunk (start >= end, or a varlen
  /// program past the last chunk of its sequence).
  Value valid;
};

/// Locates chunk program `chunkProgram` (in [0, countChunks)): chunk
/// `chunkProgram` of every batch entry for fixed length, or the
/// (sequence, chunk) found by tile.varlen_chunk with `cuSeqlens`.
ChunkRows locateChunk(OpBuilder &b, Location loc, Value chunkProgram,
                      Value rows, Value cuSeqlens, int64_t bt);

/// The work item of a chunk-parallel program: the flat program id is
/// `chunk * (B * HV) + batch * HV + value head` (heads fastest, so that
/// neighbouring programs read the same token rows).
struct ChunkProgram {
  Value batch;
  /// The value head.
  Value head;
  /// The q/k head it reads: head / (HV / H) (grouped value heads).
  Value qkHead;
  /// The chunk's rows along dimension 1 of `rowsLike`.
  ChunkRows rows;
};

/// Decomposes the program id of a kernel launched on
/// B * HV * countChunks(rowsLike, cuSeqlens, bt) programs along x. `HV` is
/// dimension 2 of `rowsLike` (a [B, T, HV, ...] buffer) and `H` dimension 2
/// of `qkLike` (a [B, T, H, ...] buffer); both may be dynamic.
ChunkProgram locateChunkProgram(OpBuilder &b, Location loc, Value rowsLike,
                                Value qkLike, Value cuSeqlens, int64_t bt);

/// A chunk-parallel kernel whose arguments 0 and 2 are a [B, T, H, ...]
/// q/k buffer and the [B, T, HV, ...] gate cumsum G, with a builder
/// positioned inside the `scf.if` that skips programs owning no chunk.
struct ChunkKernel {
  func::FuncOp kernel;
  OpBuilder builder;
  ChunkProgram program;
  /// Kernel argument `i`.
  Value arg(unsigned i) { return kernel.getArgument(i); }
};

/// Appends the buffer of `cuSeqlens` to `args` when there is one (a varlen
/// stage: it is the kernel's last argument); returns it, or null.
Value appendCuSeqlens(StageContext &ctx, Value cuSeqlens,
                      SmallVectorImpl<Value> &args);

/// Creates the kernel of a chunk-parallel stage over `args` (the last one is
/// cu_seqlens when `varlen`) and locates its program's chunk.
ChunkKernel createChunkKernel(StageContext &ctx, Location loc, ValueRange args,
                              int64_t numThreads, bool varlen, int64_t bt);

/// Gives a kernel body (any struct with these fields) the coordinates of
/// its program's chunk: batch, value head, q/k head and the chunk's rows.
template <typename Body>
void setChunkCoordinates(Body &body, const ChunkProgram &program) {
  body.batch = program.batch;
  body.head = program.head;
  body.qkHead = program.qkHead;
  body.rowStart = program.rows.start;
  body.rowEnd = program.rows.end;
}

/// Launches a chunk-parallel kernel on NT * B * HV programs along x, NT and
/// HV taken from args[2] (G) and `cuSeqlens`.
void launchChunkKernel(StageContext &ctx, Location loc, func::FuncOp kernel,
                       ValueRange args, Value cuSeqlens, int64_t bt);

/// Dimension 2 of the [B, T, heads, ...] buffer `buffer`: its head count (a
/// constant when static).
Value headCount(OpBuilder &b, Location loc, Value buffer);

/// B * heads for the [B, T, heads, ...] buffer `buffer` (host side).
Value batchHeads(OpBuilder &b, Location loc, Value buffer);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_KDATOTILE_STAGELOWERING_H
