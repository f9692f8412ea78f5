//===- StageLowering.h - kda stage ops to tile kernels ----------*- C++ -*-===//
//
// Internal interface of the kda-to-tile conversion: one lowering per stage
// op (lowerStage), each adding a tile kernel to the module and a tile.launch
// to the host, and the helpers the lowerings share.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_LIB_CONVERSION_KDATOTILE_STAGELOWERING_H
#define KDA_LIB_CONVERSION_KDATOTILE_STAGELOWERING_H

#include "TileValueBuilder.h"

#include "kda/Dialect/KDA/KDAOps.h"
#include "kda/Conversion/KDAToTile/KernelTuning.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <optional>

namespace mlir::kda {

class KernelArguments;

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
  /// The target that chooses each kernel's tuning (the pass's `tuning`).
  const KernelTuningTarget &target;
  /// Width of K tiles for stages that tile K (the pass's block-k); 0 lets
  /// each kernel's tuning choose (withKTileWidth).
  int64_t blockK;
  /// Where every kernel's tiles will live on the GPU, or none when each
  /// kernel takes the mapping its tuning prefers; selects the kernel tuning
  /// (tuningOf).
  std::optional<TileMapping> mapping;
  /// The recurrence kernels (isRecurrenceKernel) take their register tuning
  /// whatever `mapping` says (the pass's mapping recurrences-on-registers).
  bool recurrencesOnRegisters;
  /// The per-chunk stages are built for one fused kernel (the pass's
  /// fusable-chunk-stages): the gate cumsum runs one program per chunk and
  /// value head, partitioned like the other per-chunk stages, and they all
  /// take their shared-memory tuning (tuningOf).
  bool fusableChunkStages;
  /// A preprocessing stage (l2norm, beta_activation) built for the fused
  /// per-chunk kernel: the forward's gate cumsum, whose chunk programs
  /// (one per chunk and value head, over its g and cu_seqlens) the stage
  /// takes, so that it joins the kernel; null for one built as a kernel of
  /// its own (programs over blocks of tokens).
  GateCumsumOp chunkGate;
  /// intra_diag's exact path factors its decays through the reference row
  /// where the sub-chunk's gate drop allows (the pass's
  /// exact-diagonal-factoring; IntraDiagKernel.cpp).
  bool exactDiagonalFactoring;
  /// intra_diag's exact path forms its pairwise decays by key rows, in 2-D
  /// tiles (the pass's exact-diagonal-rows; IntraDiagKernel.cpp).
  bool exactDiagonalRows;
  /// The in-kernel gate's and beta_activation's sigmoids with exp2 and an
  /// approximate division (the pass's approximate-sigmoid;
  /// TileValueBuilder::sigmoid).
  bool approximateSigmoid;
  /// Records the name and dimension symbols of a tensor of the kda function
  /// (used for entry arguments and results in the bundle manifest). `dims`
  /// holds one symbol per dimension; static dimensions are written as their
  /// size instead.
  function_ref<void(Value tensor, StringRef name, ArrayRef<StringRef> dims)>
      describe;
  /// Records a specialization-key entry of the program.
  function_ref<void(StringRef key, StringRef value)> addKey;
  /// With fusableChunkStages, the shape the per-chunk stages ask the target
  /// for their mapping with (KernelShape::fusedChunkStage, the K and
  /// operand types of the function's chunk recurrence).
  KernelShape fusedChunkStageShape = {};
};

/// The width of the tiles of a feature dimension of `dim` columns: `max`,
/// at most `dim` rounded up to a power of 2.
inline int64_t columnTile(int64_t dim, int64_t max) {
  return std::min<int64_t>(max, llvm::PowerOf2Ceil(static_cast<uint64_t>(dim)));
}

/// True for the kernels of the per-chunk stages (the gate cumsum,
/// intra_diag, inter_solve, wy_recompute, decay_apply).
bool isChunkStageKernel(TunedKernel kernel);

/// True for the kernels that carry a state from chunk to chunk (the state
/// scans and the recurrent form's chunk recurrence).
bool isRecurrenceKernel(TunedKernel kernel);

/// The tuning of `kernel`, whose buffers have the shape traits `shape`, for
/// the mapping its tiles will get: registers for a recurrence kernel with
/// recurrencesOnRegisters; the pass's; for a per-chunk stage built for a
/// fused kernel (fusableChunkStages, and l2norm and beta_activation built
/// into it), the one the target prefers for the fused kernel's stages
/// (ctx.fusedChunkStageShape) with the tuning it gives such parts; else
/// the one it prefers for the kernel.
inline KernelTuning tuningOf(const StageContext &ctx, TunedKernel kernel,
                             const KernelShape &shape = {}) {
  if (ctx.recurrencesOnRegisters && isRecurrenceKernel(kernel))
    return ctx.target.getKernelTuning(kernel, TileMapping::registers);
  if (!ctx.mapping && ctx.fusableChunkStages &&
      (isChunkStageKernel(kernel) || ctx.chunkGate))
    return ctx.target.getFusedChunkStageTuning(kernel,
                                               ctx.fusedChunkStageShape);
  return ctx.target.getKernelTuning(
      kernel,
      ctx.mapping.value_or(ctx.target.getPreferredMapping(kernel, shape)));
}

/// The shape traits of a kernel whose [B, T, heads, ...] buffers include
/// those of `tensors`, varlen when `cuSeqlens` is set.
KernelShape getKernelShape(ArrayRef<Value> tensors, Value cuSeqlens);

/// The shape traits of a kernel that carries a state (a state scan, the
/// chunk recurrence): its state has the rows of `kg`'s last dimension (K),
/// and its dots take 16-bit operands when `kg` and `u` (u, or v in the
/// recurrent form) share a 16-bit element type.
KernelShape getStateKernelShape(Value kg, Value u, Value cuSeqlens);

/// `tuning` with the width of its K tiles resolved for `k` columns: the
/// pass's block-k, or the kernel tuning's when block-k is 0, at most K
/// rounded up to a power of 2. The kernel is built with that width, and its
/// tile.tuning records it.
inline KernelTuning withKTileWidth(const StageContext &ctx,
                                   KernelTuning tuning, int64_t k) {
  tuning.blockK = columnTile(k, ctx.blockK > 0 ? ctx.blockK : tuning.blockK);
  return tuning;
}

// One overload per stage op, each adding the stage's kernel to the module
// and its launch to the host:
//  - kda.l2norm: one kernel over (32-token blocks, B * H);
//  - kda.beta_activation: one kernel over (64-token blocks, B * HV);
//  - kda.gate_cumsum: one kernel over (K tiles, chunks, B * HV), or over
//    (chunks, B * HV) with fusable-chunk-stages;
//  - kda.intra_diag: one kernel over (chunks, B * HV), the diagonal 16x16
//    sub-chunk blocks of Aqk and Akk (their inverses with safe_gate);
//  - kda.inter_solve: one kernel over (chunks, B * HV), the off-diagonal
//    sub-chunk blocks of Aqk and Akk and M = (I + Akk)^-1 per chunk;
//  - kda.wy_recompute: one kernel over (chunks, B * HV), w, u and kg;
//  - kda.output: one kernel over (V tiles, chunks, B * HV), o per chunk;
//  - kda.state_scan: one kernel over (V tiles, N * HV), the state scan over
//    each sequence's chunks, giving h, v_new and the final state;
//  - kda.state_scan_output: the state scan's kernel computing each chunk's
//    output from the state entering it, o and the final state (no h or
//    v_new);
//  - kda.decay_apply: one kernel over (chunks, B * HV), qg, kd and kg;
//  - kda.chunk_recurrence: the state scan's kernel in the recurrent form,
//    with the solve's product and the output inside (o and the final
//    state).
LogicalResult lowerStage(L2NormOp op, StageContext &ctx);
LogicalResult lowerStage(BetaActivationOp op, StageContext &ctx);
LogicalResult lowerStage(GateCumsumOp op, StageContext &ctx);
LogicalResult lowerStage(IntraDiagOp op, StageContext &ctx);
LogicalResult lowerStage(InterSolveOp op, StageContext &ctx);
LogicalResult lowerStage(WYRecomputeOp op, StageContext &ctx);
LogicalResult lowerStage(OutputOp op, StageContext &ctx);
LogicalResult lowerStage(StateScanOp op, StageContext &ctx);
LogicalResult lowerStage(StateScanOutputOp op, StageContext &ctx);
LogicalResult lowerStage(DecayApplyOp op, StageContext &ctx);
LogicalResult lowerStage(ChunkRecurrenceOp op, StageContext &ctx);

/// True for bf16 and f16, whose values dots take as they are: exact in
/// tf32, with products exact in f32.
inline bool isSixteenBitFloat(Type type) {
  return type.isBF16() || type.isF16();
}

/// Records key `name` = `size` when the dimension is static (bundles with
/// dynamic head counts have no H / HV key).
inline void addDimKey(StageContext &ctx, StringRef name, int64_t size) {
  if (!ShapedType::isDynamic(size))
    ctx.addKey(name, std::to_string(size));
}

/// Records key `name` = `value` with 9 significant digits (exact for f32).
void addFloatKey(StageContext &ctx, StringRef name, float value);

/// The key entries of the sizes a chunk stage's kernel is specialized on.
struct ChunkStageKey {
  /// K.
  int64_t k;
  /// V, for the stages with value columns.
  std::optional<int64_t> v;
  /// H, for the stages that read q or k (recorded when static).
  std::optional<int64_t> h;
  /// HV (recorded when static).
  int64_t hv;
  /// The chunk size BT.
  int64_t chunk;
  /// The stage's cu_seqlens, null for fixed length (key `varlen`).
  Value cuSeqlens;
};

/// Records `key`: K, V, H, HV, chunk and varlen.
void addChunkStageKey(StageContext &ctx, const ChunkStageKey &key);

/// The key of a stage over the [B, T, H, K] tensor `qk` and the
/// [B, T, HV, V] tensor `v` with chunks of `chunk` rows (kda.wy_recompute,
/// kda.output); fails, with an error on `op`, when K or V is dynamic.
FailureOr<ChunkStageKey> getColumnStageKey(Operation *op, Value qk, Value v,
                                           int64_t chunk, Value cuSeqlens);

/// Creates an empty tile kernel `name` with the given argument types and
/// `tuning` (its tile.tuning attribute), inserted at the end of `module`
/// (its body holds only a return; see kernelBuilder).
func::FuncOp createKernel(ModuleOp module, StringRef name, TypeRange argTypes,
                          const KernelTuning &tuning);

/// A builder at the start of the body of a kernel made by createKernel
/// (before its return).
inline OpBuilder kernelBuilder(func::FuncOp kernel) {
  return OpBuilder(kernel.getBody().front().getTerminator());
}

/// Launches `kernel` with `args` on `gridX` programs along x (and `one`, the
/// host's constant 1, along y and z).
tile::LaunchOp launchKernel(OpBuilder &host, Location loc, func::FuncOp kernel,
                  Value gridX, Value one, ValueRange args);

/// Launches `kernel` with `args` on gridX(host, NT, B * HV) programs along
/// x, where NT = countChunks(rows, cuSeqlens, bt) and B * HV =
/// batchHeads(rows) for the [B, T, HV, ...] buffer `rows`.
tile::LaunchOp launchOverChunks(
    StageContext &ctx, Location loc, func::FuncOp kernel, ValueRange args,
    Value rows, Value cuSeqlens, int64_t bt,
    function_ref<Value(OpBuilder &host, Value chunks, Value heads)> gridX);

/// Declares on `launch` the partition of the per-chunk stages,
/// `chunks<bt>` (tile.partition): program t * (B * HV) + bh reads and
/// writes the intermediates of chunk t and value head bh only.
void setChunkPartition(tile::LaunchOp launch, int64_t bt);

/// ceil(a / b) for index values.
Value ceilDiv(OpBuilder &b, Location loc, Value a, int64_t divisor);

/// Number of chunk programs along T for a `[B, T, ...]` buffer `rows`:
/// ceil(T / BT) for fixed length, or floor(T / BT) + N with `cuSeqlens` (see
/// tile.varlen_chunk).
Value countChunks(OpBuilder &b, Location loc, Value rows, Value cuSeqlens,
                  int64_t bt);

/// Entry `i` of the i64 buffer `cuSeqlens`, as an index.
Value loadOffset(OpBuilder &b, Location loc, Value cuSeqlens, Value i);

/// floor(bos / BT) + seq, `bos` being cu_seqlens[seq]: the chunk program
/// (locateChunk's numbering with cu_seqlens) of the first chunk of
/// sequence `seq`.
Value firstChunkProgram(OpBuilder &b, Location loc, Value bos, Value seq,
                        int64_t bt);

/// chunk_offsets[seq] = sum over m < seq of ceil((cu[m+1] - cu[m]) / BT):
/// the global id of the first chunk of sequence `seq` (its slot in h).
Value chunkOffset(OpBuilder &b, Location loc, Value cuSeqlens, Value seq,
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
  /// With cu_seqlens: the chunk's sequence and its index in that sequence
  /// (null for fixed length).
  Value sequence, sequenceChunk;
};

/// Locates chunk program `chunkProgram` (in [0, countChunks)): chunk
/// `chunkProgram` of every batch entry for fixed length, or the
/// (sequence, chunk) found by tile.varlen_chunk with `cuSeqlens`. With
/// `markStart` (stages built for one fused kernel) the start goes through
/// tile.chunk_start, for kda-privatize-chunk-buffers.
ChunkRows locateChunk(OpBuilder &b, Location loc, Value chunkProgram,
                      Value rows, Value cuSeqlens, int64_t bt,
                      bool markStart = false);

/// The work item of a chunk-parallel program.
struct ChunkProgram {
  /// The chunk program index in [0, countChunks): the slot of the program's
  /// chunk in per-chunk tensors ([B, NC, ...], e.g. decay_apply's
  /// decay_last).
  Value chunk;
  /// The batch entry.
  Value batch;
  /// The value head.
  Value head;
  /// The q/k head it reads: head / (HV / H) (grouped value heads).
  Value qkHead;
  /// The chunk's rows along dimension 1 of the [B, T, ...] buffers.
  ChunkRows rows;
};

/// The kernel of a chunk-parallel stage, with a builder positioned inside
/// the `scf.if` that skips programs owning no chunk.
struct ChunkKernel {
  func::FuncOp kernel;
  OpBuilder builder;
  ChunkProgram program;
};

/// Lowers a chunk-parallel stage whose kernel arguments are `args`:
/// arguments 0 and 2 are a [B, T, H, ...] q/k buffer and the [B, T, HV, ...]
/// gate cumsum G, and the last one is cu_seqlens when the stage has
/// `cuSeqlens`. Creates the kernel, which numbers its programs
/// `chunk * (B * HV) + batch * HV + value head` along x (heads fastest, so
/// that neighbouring programs read the same token rows) and locates each
/// program's chunk; lets `buildBody` fill it; launches it on NT * B * HV
/// programs and maps the stage's results to their buffers. The launch
/// declares the partition `chunks<BT>` (tile.partition): each program reads
/// and writes the intermediates of its own chunk and value head only.
void lowerChunkStage(StageContext &ctx, Location loc,
                     const KernelArguments &args, Value cuSeqlens,
                     const KernelTuning &tuning, int64_t bt,
                     function_ref<void(ChunkKernel &kernel)> buildBody);

/// What the body of every chunk-parallel kernel has: the builder of its
/// tile values and the coordinates of its program's chunk.
struct ChunkKernelBody {
  /// A body built with `b` at `loc` for the program located by `program`.
  ChunkKernelBody(OpBuilder &b, Location loc, const ChunkProgram &program)
      : t{b, loc}, chunk(program.chunk), batch(program.batch),
        head(program.head),
        qkHead(program.qkHead), rowStart(program.rows.start),
        rowEnd(program.rows.end) {}
  /// The body of `kernel`, built at `loc`.
  ChunkKernelBody(ChunkKernel &kernel, Location loc)
      : ChunkKernelBody(kernel.builder, loc, kernel.program) {}

  TileValueBuilder t;
  /// The chunk program index (see ChunkProgram::chunk).
  Value chunk;
  /// The batch entry, the value head and the q/k head it reads.
  Value batch, head, qkHead;
  /// The chunk's rows [rowStart, rowEnd) (see ChunkRows).
  Value rowStart, rowEnd;

  OpBuilder &b() { return t.b; }
  Location loc() { return t.loc; }
};

/// Dimension 2 of the [B, T, heads, ...] buffer `buffer`: its head count (a
/// constant when static).
Value headCount(OpBuilder &b, Location loc, Value buffer);

/// B * heads for the [B, T, heads, ...] buffer `buffer` (host side).
Value batchHeads(OpBuilder &b, Location loc, Value buffer);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_KDATOTILE_STAGELOWERING_H
