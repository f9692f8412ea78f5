//===- BF16Memory.h - bf16 values kept as their 16 bits ----------*- C++
//-*-===//
//
// The CPU build is compiled for generic x86-64, which has no bf16
// instructions: LLVM moves a bf16 value through a float register with
// __truncsfbf2, a libgcc function only since GCC 13. The CPU pipeline
// already expands bf16 conversions to integer arithmetic; what remains are
// the loads and stores of bf16 memory, which this rewrite turns into i16
// loads and stores so that no bf16 value is left in a register.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_LIB_TARGET_BUNDLE_BF16MEMORY_H
#define KDA_LIB_TARGET_BUNDLE_BF16MEMORY_H

namespace llvm {
class Module;
} // namespace llvm

namespace mlir::kda {

/// Rewrites every load and store of a bfloat in `module` into a load and
/// store of i16, folding the bitcasts between i16 and bfloat that meet.
void storeBF16AsI16(llvm::Module &module);

} // namespace mlir::kda

#endif // KDA_LIB_TARGET_BUNDLE_BF16MEMORY_H
