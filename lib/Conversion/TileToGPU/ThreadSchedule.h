//===- ThreadSchedule.h - static per-thread loops for tile ops --*- C++ -*-===//

#ifndef KDA_LIB_CONVERSION_TILETOGPU_THREADSCHEDULE_H
#define KDA_LIB_CONVERSION_TILETOGPU_THREADSCHEDULE_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kda {

/// Replaces the band of parallel loops `band` (perfectly nested, from
/// linalg-to-loops: lower bound 0, step 1, static extents d_0 .. d_{p-1})
/// by a loop with a static trip count in which thread `tid` of
/// `numThreads` visits its iterations, seen as rows R = d_0 * ... * d_{p-2}
/// of C = d_{p-1} columns:
///  - if C divides the block, a thread keeps one column (tid mod C) and
///    takes every (numThreads / C)-th row, from row tid / C;
///  - if the block divides C, a thread takes every row and the columns
///    tid, tid + numThreads, ...
/// Each iteration's coordinates are the thread's own plus a constant, so
/// once the loop is unrolled (fully up to 16 iterations, else by 8) the
/// index arithmetic folds into the addresses. Returns false (and changes
/// nothing) when neither case applies or an extent is not static; the
/// caller then strides the linearized band over the threads.
///
/// The same shape always gets the same schedule, so two ops over the same
/// static iteration space give each iteration to the same thread.
bool scheduleBandStatically(RewriterBase &rewriter, ArrayRef<scf::ForOp> band,
                            Value tid, int64_t numThreads);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_TILETOGPU_THREADSCHEDULE_H
