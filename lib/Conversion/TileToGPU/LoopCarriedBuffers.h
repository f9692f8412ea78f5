//===- LoopCarriedBuffers.h - one buffer per loop-carried tile --*- C++ -*-===//

#ifndef KDA_LIB_CONVERSION_TILETOGPU_LOOPCARRIEDBUFFERS_H
#define KDA_LIB_CONVERSION_TILETOGPU_LOOPCARRIEDBUFFERS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::kda {

/// Gives every workgroup buffer that an scf.for carries its own allocation,
/// made before the loop: the initial value is copied into it, each
/// iteration's yielded buffer is copied into it at the end of the body, and
/// the loop yields it. The loop then no longer carries it (the body and the
/// code after the loop use the allocation directly). New allocations are
/// appended to `allocs`.
///
/// One-shot bufferization lets a loop yield a buffer allocated in its body
/// (a fresh allocation per iteration in buffer semantics). Shared memory
/// gives each allocation one fixed place, so the body's next iteration
/// would overwrite the buffer that its iter_arg still reads; after this,
/// no loop yields an allocation of its own body.
///
/// A buffer that the loop hands on unchanged (the iter_arg itself is
/// yielded, directly or through scf.if ops whose branches all yield it: a
/// tile updated in place) is the initial buffer in every iteration: the
/// body and the code after the loop use the initial buffer directly, with
/// no copy, and the loop stops carrying it. A buffer the body allocates and
/// yields, and first touches (in a separate op) after its last use of the
/// carried one (a tile loaded an iteration ahead), is the carried buffer
/// itself: no copy at the end of the body. So no loop carries a shared
/// buffer afterwards, and every shared access names a packed buffer whose
/// bytes barrier and wait placement know.
void separateLoopCarriedBuffers(gpu::GPUFuncOp func,
                                SmallVectorImpl<memref::AllocOp> &allocs);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_TILETOGPU_LOOPCARRIEDBUFFERS_H
