//===- VectorElementwise.h - elementwise tile ops by vectors ----*- C++ -*-===//

#ifndef KDA_LIB_CONVERSION_TILETOGPU_VECTORELEMENTWISE_H
#define KDA_LIB_CONVERSION_TILETOGPU_VECTORELEMENTWISE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kda {

/// Lanes per thread and step with which vectorizeElementwise runs `op`, or
/// 0 if it does not apply: `op` is a linalg.generic (or a copy between
/// shared buffers, a fill or a map, generalized first) on memrefs with only
/// parallel loops of static extents, the innermost a multiple of 4, whose
/// outputs are shared buffers of static, 16-byte-aligned layout (unit
/// innermost stride) written through identity maps.
int64_t elementwiseVectorLanes(linalg::LinalgOp op);

/// Replaces `op` (see elementwiseVectorLanes) by a static per-thread loop
/// over its iterations taken 4 consecutive ones (along the innermost loop)
/// at a time: step k of thread tid takes the group tid + k * numThreads of
/// the linearized groups. Operands read along the innermost loop from
/// aligned shared buffers are vector loads; operands that do not depend on
/// the innermost loop are one scalar load; others, one scalar load per
/// lane. The body runs once per lane and the outputs are vector stores.
/// Returns false (and changes nothing) if it does not apply.
bool vectorizeElementwise(RewriterBase &rewriter, linalg::LinalgOp op,
                          int64_t numThreads);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_TILETOGPU_VECTORELEMENTWISE_H
