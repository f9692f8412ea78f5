//===- ReductionLoops.h - a thread's reduction loops ------------*- C++ -*-===//

#ifndef KDA_LIB_CONVERSION_TILETOGPU_REDUCTIONLOOPS_H
#define KDA_LIB_CONVERSION_TILETOGPU_REDUCTIONLOOPS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kda {

/// Keeps the accumulators of the reduction loop `reduction` in registers.
/// A thread's reduction step loads each of its output elements, adds to it
/// and stores it back; when the element's indices do not change inside the
/// loop, the element becomes a loop-carried value instead: loaded once
/// before the loop and stored once after it.
///
/// ```mlir
/// scf.for %k = %c0 to %c32 step %c1 {
///   %a = memref.load %acc[%i, %j]
///   %s = arith.addf %a, %x
///   memref.store %s, %acc[%i, %j]
/// }
/// // becomes
/// %a0 = memref.load %acc[%i, %j]
/// %r = scf.for %k = %c0 to %c32 step %c1 iter_args(%a = %a0) {
///   %s = arith.addf %a, %x
///   scf.yield %s
/// }
/// memref.store %r, %acc[%i, %j]
/// ```
///
/// The caller guarantees that distinct stores of one buffer in the loop
/// write distinct elements (the thread schedule's copies of a jammed
/// reduction each own one output element) and that no other buffer in the
/// loop aliases an accumulator (a linalg op's inputs and outputs are
/// distinct buffers). Once the loop stores nothing, loads with invariant
/// indices (a mask, a row the thread keeps) move before it as well when it
/// runs at least once. Returns the loop that replaces `reduction`.
scf::ForOp promoteReductionAccumulators(RewriterBase &rewriter,
                                        scf::ForOp reduction);

/// Reads four consecutive 32-bit elements per shared-memory load in the
/// reduction loop `reduction` (0 to a multiple of 4, step 1, writing no
/// memory, as after promoteReductionAccumulators): the loop steps by 4,
/// each load of workgroup memory whose last index is the induction
/// variable (its other indices defined outside the loop, rows 16-byte
/// aligned) becomes one `vector.load` of 4 elements, aligned to 16 bytes,
/// and the body runs 4 times on its elements. A warp's load then serves 4
/// reduction steps in one shared-memory access (`ld.shared.v4`): in a
/// reduction whose threads share rows (a broadcast), the accesses, not the
/// bytes, bound the loop. Returns the loop that replaces `reduction`, or
/// `reduction` when nothing qualifies.
///
/// ```mlir
/// scf.for %k = %c0 to %c32 step %c1 iter_args(%a = %a0) -> (f32) {
///   %x = memref.load %buf[%i, %k] : memref<16x32xf32, #gpu.address_space<workgroup>>
///   ...
/// }
/// // becomes
/// scf.for %k = %c0 to %c32 step %c4 iter_args(%a = %a0) -> (f32) {
///   %v = vector.load %buf[%i, %k] {alignment = 16} : ..., vector<4xf32>
///   %x0 = vector.extract %v[0] : f32 from vector<4xf32>
///   ... (the body on %x0, then on %x1 with %k + 1, ...)
/// }
/// ```
scf::ForOp vectorizeReductionLoads(RewriterBase &rewriter,
                                   scf::ForOp reduction);

/// True if the memory indices `a` and `b` name the same element: each pair
/// is one value or computed alike from the same values (linalg-to-loops
/// gives the load and the store of an accumulator separate affine.apply
/// ops).
bool areEquivalentIndices(ValueRange a, ValueRange b);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_TILETOGPU_REDUCTIONLOOPS_H
