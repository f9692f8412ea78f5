//===- SharedMemory.h - pack tile temporaries into shared memory -*- C++ -*-===//

#ifndef KDA_LIB_CONVERSION_TILETOGPU_SHAREDMEMORY_H
#define KDA_LIB_CONVERSION_TILETOGPU_SHAREDMEMORY_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::kda {

/// The most static shared memory a kernel may declare; above it, kernels
/// use dynamic shared memory (the launch asks for it).
constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;

/// True if `type` is a workgroup memref whose every row (run along the
/// unit-stride last dimension) starts on a 16-byte boundary of the buffer
/// it views: static strides and offset, each a multiple of 16 bytes but
/// the last, which is 1. The packed buffers start on 128-byte boundaries,
/// so such rows can be read 16 bytes at a time (ldmatrix, ld.shared.v4).
bool hasSixteenByteRows(MemRefType type);

/// Replaces the workgroup allocations `allocs` of `func` by views into one
/// shared byte buffer in which allocations whose live ranges do not overlap
/// share bytes. A live range runs from the first to the last use of the
/// allocation or of any view of it (view ops and the allocation itself do
/// not count), widened to whole loops around a use that do not hold the
/// allocation.
/// 2-D buffers whose rows are a multiple of 128 bytes long, and operands of
/// 16-bit tensor-core matmuls (`numThreads` per block) whose rows are a
/// multiple of 32 bytes, get 16 bytes of padding per row (against
/// shared-memory bank conflicts) when all their uses are linalg ops and
/// subviews, which take the padded strided layout.
/// The buffer is a workgroup attribution when it fits in
/// kMaxStaticSharedBytes, else gpu.dynamic_shared_memory; returns the bytes
/// of dynamic shared memory the launch must provide (0 for static).
/// With `explicitBarriers` (a kernel whose shared-memory accesses are
/// ordered by the gpu.barrier ops already in it, as convert-tile-to-simt
/// writes them, rather than by barriers planned after packing), two
/// buffers share bytes only where such a barrier separates the last access
/// to one from the first access to the other.
FailureOr<int64_t> packSharedMemory(gpu::GPUFuncOp func,
                                    ArrayRef<memref::AllocOp> allocs,
                                    int64_t numThreads,
                                    bool explicitBarriers);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_TILETOGPU_SHAREDMEMORY_H
