//===- SubChunkKernel.h - what intra_diag and inter_solve share -*- C++ -*-===//
//
// The two sub-chunk stages, kda.intra_diag and kda.inter_solve, take the
// same leading operands (q, k, G, beta, then Aqk and Akkd: results of
// intra_diag, operands of inter_solve), are specialized on the same key
// entries and split each chunk into sub-chunks of 16 rows. This file holds
// what their lowerings share: the sub-chunk size, their kernel arguments
// and key, and the fields and row loads of their kernel bodies.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_LIB_CONVERSION_KDATOTILE_SUBCHUNKKERNEL_H
#define KDA_LIB_CONVERSION_KDATOTILE_SUBCHUNKKERNEL_H

#include "KernelArguments.h"
#include "StageLowering.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::kda {

/// Rows of a sub-chunk (BC); the op verifier guarantees sub_chunk_size = 16.
inline constexpr int64_t kBC = 16;

/// Declares the kernel arguments of a sub-chunk stage: q, k, G, beta, Aqk,
/// Akkd, then `results` (inter_solve's), then cu_seqlens if any; records the
/// key entries both stages have. Fails on a sub_chunk_size other than kBC.
template <typename SubChunkOp>
FailureOr<KernelArguments>
declareSubChunkArguments(StageContext &ctx, SubChunkOp op,
                         ArrayRef<KernelArgument> results) {
  if (op.getSubChunkSize() != kBC)
    return op.emitOpError("has no lowering for sub_chunk_size ")
           << op.getSubChunkSize() << " (only " << kBC << ")";
  SmallVector<KernelArgument> table = {
      {op.getQ(), "q"},       {op.getK(), "k"},     {op.getG(), "G"},
      {op.getBeta(), "beta"}, {op.getAqk(), "Aqk"}, {op.getAkkd(), "Akkd"}};
  table.append(results.begin(), results.end());
  table.push_back({op.getCuSeqlens(), "cu_seqlens"});
  KernelArguments args(ctx, op, table);
  // The verifier guarantees static H, HV and K (kernels are specialized on
  // them) and HV % H == 0.
  auto qType = cast<RankedTensorType>(op.getQ().getType());
  auto gType = cast<RankedTensorType>(op.getG().getType());
  addChunkStageKey(ctx, {qType.getDimSize(3), std::nullopt, qType.getDimSize(2),
                         gType.getDimSize(2),
                         static_cast<int64_t>(op.getChunkSize()),
                         op.getCuSeqlens()});
  addFloatKey(ctx, "scale", op.getScale().convertToFloat());
  ctx.addKey("safe_gate", op.getSafeGate() ? "1" : "0");
  return args;
}

/// The body of a sub-chunk stage's program: its leading arguments, the
/// sizes and attributes of the stage and the row loads both kernels make.
struct SubChunkKernelBody : ChunkKernelBody {
  /// The body of the kernel of `op`, whose arguments `args` are those
  /// declareSubChunkArguments declares, with K tiles of `tuning`'s width
  /// (resolved by withKTileWidth).
  template <typename SubChunkOp>
  SubChunkKernelBody(ChunkKernel &kernel, Location loc,
                     const KernelArguments &args, SubChunkOp op,
                     const KernelTuning &tuning)
      : ChunkKernelBody(kernel, loc) {
    auto qType = cast<RankedTensorType>(op.getQ().getType());
    args.bind(kernel.kernel, q, k, G, beta, aqk, akkd);
    bt = op.getChunkSize();
    numSub = bt / kBC;
    kDim = qType.getDimSize(3);
    bk = tuning.blockK;
    ioType = qType.getElementType();
    scale = op.getScale().convertToFloat();
    safeGate = op.getSafeGate();
  }

  // Arguments.
  Value q, k, G, beta, aqk, akkd;
  // Static sizes: NC = BT / BC sub-chunks, K, the K tile BK, BT.
  int64_t numSub = 0, kDim = 0, bk = 0, bt = 0;
  /// Element type of q, k, Aqk and the outputs.
  Type ioType;
  float scale = 1.0f;
  bool safeGate = false;

  /// The [rows, BK] f32 tile of rows [row, row + rows) and columns [col,
  /// col + BK) of a [B, T, heads, K] buffer at head `h` (a whole sub-chunk
  /// by default); rows >= rowEnd and columns >= K read as 0.
  Value loadRows(Value source, Value row, Value h, Value col,
                 int64_t rows = kBC) {
    auto elem = cast<MemRefType>(source.getType()).getElementType();
    Value tile = tile::LoadOp::create(
        b(), loc(), t.tileOf({rows, bk}, elem), source,
        ValueRange{batch, row, h, col}, ValueRange{rowEnd, t.index(kDim)},
        b().getDenseI64ArrayAttr({1, 3}), nullptr);
    return t.toF32(tile);
  }
  /// beta at the rows [row, row + rows) (BC by default) as an f32 tile;
  /// rows >= rowEnd read as 0.
  Value loadBeta(Value row, int64_t rows = kBC) {
    auto elem = cast<MemRefType>(beta.getType()).getElementType();
    Value tile = tile::LoadOp::create(
        b(), loc(), t.tileOf({rows}, elem), beta, ValueRange{batch, row, head},
        ValueRange{rowEnd}, b().getDenseI64ArrayAttr({1}), nullptr);
    return t.toF32(tile);
  }
};

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_KDATOTILE_SUBCHUNKKERNEL_H
