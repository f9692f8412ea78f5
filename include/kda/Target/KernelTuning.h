//===- KernelTuning.h - how each kda kernel runs on Hopper ------*- C++ -*-===//
//
// The one place where the launch shape of every kernel that KDAToTile builds
// is chosen for NVIDIA Hopper (sm_90): threads per program, register cap,
// live-tile budget, the width of its K tiles, its mapping and pipelining
// depth. KDAToTile asks for it through the KernelTuningTarget registered
// here under the name "sm_90" (its `tuning` option); each number was chosen
// by measurement on an H200, and the comment beside it says what was
// measured.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_TARGET_KERNELTUNING_H
#define KDA_TARGET_KERNELTUNING_H

#include "kda/Conversion/KDAToTile/KernelTuning.h"

#include "llvm/ADT/StringRef.h"

namespace mlir::kda {

/// Which kernels get their global addresses as a program base plus a
/// per-access offset (gpu-hoist-uniform-addresses).
enum class AddressHoisting {
  /// Those whose tuning asks for it (KernelTuning::hoistAddresses).
  tuned,
  /// Every kernel.
  all,
  /// None.
  none,
};

/// The name under which the Hopper tuning is registered: the default of
/// convert-kda-to-tile's `tuning` option.
inline constexpr llvm::StringLiteral kHopperTuningName = "sm_90";

/// The element types of a forward's q, k and v, as the choice of its form
/// sees them.
enum class ForwardOperands {
  /// One 16-bit float type (bf16 or f16).
  sixteenBit,
  /// All f32.
  f32,
  /// Anything else (types that differ).
  mixed,
};

/// Whether the Hopper tuning runs a whole forward (kda.chunk_fwd) whose
/// state has `keyDim` rows and whose q, k and v are `operands` in the
/// recurrent two-kernel form (kda-fuse-recurrence, the fused per-chunk
/// kernel, chunks of 16): K from 65 to 128 with 16-bit operands, where its
/// chunk recurrence runs on registers. Elsewhere the staged form is faster
/// (measured at K = 64 and 256, docs/performance.md), not yet checked on
/// the GPU tier (f32, where the recurrent form was faster) or not measured
/// (mixed types).
bool prefersRecurrentForward(int64_t keyDim, ForwardOperands operands);

/// Registers the Hopper tuning as kHopperTuningName (once; later calls do
/// nothing). The pipelines and registerAllKDAPasses call it.
void registerHopperKernelTuning();

} // namespace mlir::kda

#endif // KDA_TARGET_KERNELTUNING_H
