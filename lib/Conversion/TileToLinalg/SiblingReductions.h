//===- SiblingReductions.h - one loop nest for reductions that share inputs -===//

#ifndef KDA_LIB_CONVERSION_TILETOLINALG_SIBLINGREDUCTIONS_H
#define KDA_LIB_CONVERSION_TILETOLINALG_SIBLINGREDUCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::kda {

/// Merges reductions of `kernel` that read a common input into one
/// linalg.generic with an output per reduction.
///
/// Two linalg.generic ops on tensors of one block qualify when they have
/// the same static loop ranges and iterator types, at least one reduction
/// loop, a common input value, and the second one's operands are all
/// available where the first runs (or computed by side-effect-free ops,
/// such as its zero-filled init, that can move there). The
/// merged op reads the inputs of both and yields the results of both; the
/// computations their bodies share (here: the decay exp2 of the exact
/// diagonal blocks, and every load of a shared input) are left for CSE to
/// merge, so each element of the common work is computed and read once.
void fuseSiblingReductions(func::FuncOp kernel);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_TILETOLINALG_SIBLINGREDUCTIONS_H
