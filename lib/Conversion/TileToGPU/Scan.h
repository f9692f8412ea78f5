//===- Scan.h - tile scans as per-thread sequential loops -------*- C++ -*-===//

#ifndef KDA_LIB_CONVERSION_TILETOGPU_SCAN_H
#define KDA_LIB_CONVERSION_TILETOGPU_SCAN_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kda {

/// Returns true if `op` is the linalg.generic of a tile.scan (marked
/// `tile.scan` by --convert-tile-to-linalg) on memrefs with static shapes.
bool isMarkedScan(linalg::GenericOp op);

/// Replaces the scan by loops in which each thread owns lines along the
/// scan dimension and walks them in order with the running value in a
/// register: out[i] = out[i] kind (x[0] kind ... kind x[i]). The generic
/// combines the same elements in the same order, so results are identical;
/// the work drops from O(n^2) to O(n) per line. Does not add the barrier.
void lowerScanToThreadLoops(RewriterBase &rewriter, linalg::GenericOp op,
                            int64_t numThreads);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_TILETOGPU_SCAN_H
