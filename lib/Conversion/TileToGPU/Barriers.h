//===- Barriers.h - which tile ops need a barrier between them --*- C++ -*-===//

#ifndef KDA_LIB_CONVERSION_TILETOGPU_BARRIERS_H
#define KDA_LIB_CONVERSION_TILETOGPU_BARRIERS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::kda {

/// Returns true if the block's threads must meet at a barrier between
/// `first` and `second` (linalg ops on memrefs, after shared-memory
/// packing, before distribution, `second` running after `first`; a run of
/// ops without barriers must check every earlier op of the run): when one
/// of them writes memory that the other reads or writes. Shared buffers
/// are compared by their byte ranges in the packed shared block (buffers
/// with disjoint live ranges may share bytes), global memrefs by the kernel
/// argument they view (conservatively: any two views of one argument
/// overlap).
///
/// No barrier is needed where each element of a buffer is touched by the
/// same thread in both ops: both are all-parallel ops distributed the same
/// way (same static iteration space, elementwise schedule) and access the
/// buffer through the same value with identity indexing maps.
bool needsBarrierBetween(linalg::LinalgOp first, linalg::LinalgOp second);

/// Whether an op needs a barrier before and after it.
struct BarrierPlan {
  bool before = true, after = true;
};

/// The barriers around each of `ops` (linalg ops in program order, before
/// distribution): a run of neighbouring ops (only side-effect-free ops
/// between them) has no barrier inside it as long as no op of the run
/// needs one after any earlier op of the run (needsBarrierBetween).
SmallVector<BarrierPlan> planBarriers(ArrayRef<linalg::LinalgOp> ops);

/// True if `op`, or an op nested in it, may read or write shared memory
/// that overlaps one of `buffers` (shared buffers after packing, compared
/// by their byte ranges in the packed block; a shared access whose range is
/// unknown overlaps everything).
bool touchesSharedBytesOf(Operation *op, ArrayRef<Value> buffers);

/// True if `type` is a memref in GPU shared (workgroup) memory.
bool isWorkgroupMemRef(Type type);

/// The op before (after) `op` in its block, skipping side-effect-free ops
/// and allocations; null at the start (end) of the block.
Operation *previousEffectfulOp(Operation *op);
Operation *nextEffectfulOp(Operation *op);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_TILETOGPU_BARRIERS_H
