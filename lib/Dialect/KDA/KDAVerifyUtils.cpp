//===- KDAVerifyUtils.cpp - shared shape checks for kda ops ---------------===//

#include "kda/Dialect/KDA/KDAVerifyUtils.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;

LogicalResult kda::verifyRank(Operation *op, Value value, StringRef name,
                              int64_t rank, StringRef layout) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return op->emitOpError() << "operand '" << name
                             << "' must be a ranked tensor " << layout;
  if (type.getRank() != rank)
    return op->emitOpError() << "operand '" << name << "' must have rank "
                             << rank << " " << layout << ", got rank "
                             << type.getRank();
  return success();
}

LogicalResult kda::verifyStaticDim(Operation *op, Value value, StringRef name,
                                   int64_t dim, StringRef dimName) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.isDynamicDim(dim))
    return op->emitOpError()
           << "operand '" << name << "' must have a static " << dimName
           << " (dimension " << dim
           << "): kernels are specialized on it";
  return success();
}

LogicalResult kda::verifyDimMatches(Operation *op, Value value, StringRef name,
                                    int64_t dim, StringRef dimName,
                                    int64_t expected, StringRef what) {
  auto type = cast<RankedTensorType>(value.getType());
  if (ShapedType::isDynamic(expected) || type.isDynamicDim(dim))
    return success();
  if (type.getDimSize(dim) != expected)
    return op->emitOpError()
           << "operand '" << name << "' has " << dimName << " = "
           << type.getDimSize(dim) << " (dimension " << dim
           << "), but " << what << " is " << expected;
  return success();
}

LogicalResult kda::verifySeqLens(Operation *op, Value cuSeqlens,
                                 int64_t batch) {
  if (!cuSeqlens)
    return success();
  auto type = cast<RankedTensorType>(cuSeqlens.getType());
  if (type.getRank() != 1)
    return op->emitOpError()
           << "operand 'cu_seqlens' must have rank 1 [N + 1], got rank "
           << type.getRank();
  if (!type.isDynamicDim(0) && type.getDimSize(0) < 2)
    return op->emitOpError() << "operand 'cu_seqlens' must hold at least 2 "
                                "offsets (one sequence), got "
                             << type.getDimSize(0);
  if (!ShapedType::isDynamic(batch) && batch != 1)
    return op->emitOpError()
           << "varlen inputs (with 'cu_seqlens') must have batch size B = 1, "
              "got B = "
           << batch;
  return success();
}

LogicalResult kda::verifyChunkSize(Operation *op, int64_t chunkSize) {
  if (chunkSize != 32 && chunkSize != 64)
    return op->emitOpError() << "attribute 'chunk_size' must be 32 or 64, got "
                             << chunkSize;
  return success();
}
