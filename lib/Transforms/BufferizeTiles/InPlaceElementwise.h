//===- InPlaceElementwise.h - elementwise results over dead inputs -*- C++ -*-===//

#ifndef KDA_LIB_CONVERSION_BUFFERIZETILES_INPLACEELEMENTWISE_H
#define KDA_LIB_CONVERSION_BUFFERIZETILES_INPLACEELEMENTWISE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::kda {

/// Lets elementwise linalg.generic ops of `kernel` write their result over
/// an input that nothing reads afterwards, so that bufferization gives the
/// result the input's buffer instead of a new one.
///
/// A linalg.generic on tensors qualifies when all its loops are parallel,
/// it has one init, a `tensor.empty` whose values the body does not read,
/// and an input of the init's type, read through the init's indexing map,
/// that is a tile of the kernel's own (loop-carried, or the result of a
/// linalg op or a padded load; not a tile read in place from a kernel
/// argument) whose every other use comes before the op in its block (the
/// op is its last reader). That input becomes the init as well (the body still reads
/// it as an input; reading and writing the same element in one elementwise
/// op is no conflict for one-shot bufferization). A loop-carried tile
/// updated this way (S = S * decay, then accumulated into by a matmul)
/// stays in its one buffer across iterations.
void reuseDeadInputsAsInits(func::FuncOp kernel);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_BUFFERIZETILES_INPLACEELEMENTWISE_H
