//===- MatmulPrologues.h - elementwise ops into mma accumulators -*- C++ -*-===//

#ifndef KDA_LIB_CONVERSION_TILETOGPU_MATMULPROLOGUES_H
#define KDA_LIB_CONVERSION_TILETOGPU_MATMULPROLOGUES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kda {

/// Attribute of an elementwise op whose result only the next matmul reads,
/// as its accumulator: the matmul's lowering computes it into the
/// accumulator registers instead of loading them (the op's prologue).
constexpr llvm::StringLiteral kFusedPrologueAttr = "kda.fused_prologue";

/// Fuses elementwise prologues into the 16-bit tensor-core matmuls of
/// `func` (before shared memory is packed). A matmul qualifies when it
/// heads its chain and the op with memory effects right before it is a
/// linalg.generic with two parallel loops over the shape of the matmul's
/// accumulator C that writes C through the identity map without reading
/// it, reads its other operands through projected permutations (a row
/// vector broadcast along the columns, say), and has a body without memory
/// effects: S * 2^g written into C, then C += A B. The generic is marked;
/// the matmul's lowering evaluates its body at each accumulator element
/// (loading the generic's operands there) and erases it.
void fuseMatmulPrologues(Operation *func, int64_t numThreads);

/// The prologue fused into `matmul` (the op with memory effects right
/// before it), or null.
linalg::GenericOp fusedPrologueOf(Operation *matmul);

/// At the rewriter's insertion point, the value that `prologue` writes at
/// (`row`, `col`) of its output: its operands are loaded at their indices
/// for that element and its body is cloned.
Value emitPrologueElement(RewriterBase &rewriter, Location loc,
                          linalg::GenericOp prologue, Value row, Value col);

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_TILETOGPU_MATMULPROLOGUES_H
