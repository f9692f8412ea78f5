//===- MatmulEpilogues.h - elementwise ops on mma accumulators -*- C++ -*-===//

#ifndef KDA_LIB_CONVERSION_TILETOGPU_MATMULEPILOGUES_H
#define KDA_LIB_CONVERSION_TILETOGPU_MATMULEPILOGUES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kda {

/// Attribute of a tensor-core matmul whose accumulator never reaches shared
/// memory: its lowering applies the elementwise op that follows it (the
/// epilogue) to the accumulator registers and stores the epilogue's result.
constexpr llvm::StringLiteral kMatmulEpilogueAttr = "kda.mma_epilogue";

/// Attribute of that elementwise op: it is lowered with its matmul.
constexpr llvm::StringLiteral kFusedEpilogueAttr = "kda.fused_epilogue";

/// Attribute of a matmul that accumulates, right after another one, into
/// the same registers-only accumulator: it is lowered with the first one
/// of the chain (one K loop after the other on the same registers).
constexpr llvm::StringLiteral kChainedMatmulAttr = "kda.chained_matmul";

/// Attribute of a workgroup allocation that no thread reads or writes (the
/// accumulator of a matmul with an epilogue): it takes no shared bytes.
constexpr llvm::StringLiteral kRegistersOnlyAttr = "kda.registers_only";

/// Fuses elementwise epilogues into the 16-bit tensor-core matmuls of
/// `func` (a block of `numThreads` threads), before shared memory is packed.
/// A matmul qualifies when its accumulator C is a workgroup allocation used
/// only by a zero fill before the matmul, the matmul, the matmuls that come
/// right after it into the same C (a chain, e.g. the K halves of a dot),
/// and the next op with memory effects after those: a linalg.generic with
/// parallel loops and identity maps over C's shape that reads C once and writes
/// another buffer, whose body has no memory effects and whose operands are
/// available at the matmul. When that buffer is A or B, the matmul must give
/// every warp exactly one tile (its lowering then separates the reads from the
/// epilogue's stores by a barrier). Then the fill is erased (the matmul starts
/// from zero registers), the matmul and the generic are marked, and C is marked
/// registers-only. C may have later users when the first of them overwrites
/// all of C without reading it (then C keeps its shared bytes for them).
void fuseMatmulEpilogues(Operation *func, int64_t numThreads);

/// `head` and the matmuls chained to it, in order.
SmallVector<linalg::MatmulOp> matmulChainOf(Operation *head);

/// The op whose lowering also lowers `op` (the first matmul of the chain
/// for a chained matmul or a fused epilogue), or `op` itself.
Operation *loweredWith(Operation *op);

/// True if the epilogue fused into `matmul` writes one of its operands A or
/// B: the lowering then waits at a barrier (every warp has exactly one tile)
/// before the epilogue's stores.
bool epilogueWritesOperand(Operation *matmul);

/// The epilogue fused into `matmul` (the next op with memory effects), or
/// null if it has none.
linalg::GenericOp fusedEpilogueOf(Operation *matmul);

/// At the rewriter's insertion point, applies `epilogue` to the accumulator
/// element `value` at (`row`, `col`) of `acc` (the matmul's C): its other
/// operands are loaded at (`row`, `col`), its body is cloned, and its result
/// is stored into its output there.
void emitEpilogueElement(RewriterBase &rewriter, Location loc,
                         linalg::GenericOp epilogue, Value acc, Value value,
                         Value row, Value col);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_TILETOGPU_MATMULEPILOGUES_H
