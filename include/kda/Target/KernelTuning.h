//===- KernelTuning.h - how each kda kernel runs on the GPU -----*- C++ -*-===//
//
// The one place where the launch shape of every kernel that KDAToTile builds
// is chosen: threads per program, register cap, live-tile budget and the
// width of its K tiles. The stage builders ask for their kernel's tuning
// here instead of holding numbers of their own; each number was chosen by
// measurement on an H200, and the comment beside it says what was measured.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_TARGET_KERNELTUNING_H
#define KDA_TARGET_KERNELTUNING_H

#include <cstdint>

namespace mlir {
class MLIRContext;
namespace kda::tile {
class TuningAttr;
} // namespace kda::tile
} // namespace mlir

namespace mlir::kda {

/// Where a kernel's tiles will live on the GPU.
enum class TileMapping {
  /// Every tile in shared memory (convert-tile-to-gpu).
  sharedMemory,
  /// Tiles with #tile.dist layouts in registers (kda-assign-tile-layouts,
  /// then convert-tile-to-simt).
  registers,
};

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

/// The kernels whose launch shape is tuned.
enum class TunedKernel {
  l2norm,
  betaActivation,
  /// kda.gate_cumsum computing the gate in the kernel.
  gate,
  /// kda.gate_cumsum summing a precomputed gate.
  gatePrecomputed,
  /// kda.intra_diag without safe_gate.
  intraDiagExact,
  /// kda.intra_diag with safe_gate.
  intraDiagSafe,
  /// kda.inter_solve without safe_gate.
  interSolve,
  /// kda.inter_solve with safe_gate.
  interSolveSafe,
  /// kda.inter_solve with its merge at ieee precision (fp32 FMA loops,
  /// which have no register lowering).
  interSolveIEEEMerge,
  wyRecompute,
  /// kda.output with its dots in a scf.for.
  output,
  /// kda.output with its 16-bit dots unrolled into one accumulator.
  outputRegisterDots,
  stateScan,
  /// kda.state_scan computing the output (kda-fuse-scan-output).
  stateScanFused,
};

/// How one kernel runs on the GPU. A kernel carries it as its tile.tuning
/// attribute (toTuningAttr); the field comments name the attribute's
/// parameters.
struct KernelTuning {
  /// Threads per program (threads).
  int64_t numThreads;
  /// Register limit per thread (max_registers); 0 for none.
  int64_t maxRegisters = 0;
  /// Bytes of tiles the kernel's loads may keep live by moving up
  /// (max_live_bytes); 0 for no bound.
  int64_t maxLiveBytes = 0;
  /// Width of the K tiles of kernels that loop over K in tiles of a chosen
  /// width (at most K rounded up to a power of 2); 0 for the others
  /// (block_k).
  int64_t blockK = 0;
  /// Whether the kernel's loads may move out of scf.if branches
  /// (speculate_loads, kda-hoist-tile-loads).
  bool speculateLoads = false;
  /// Whether the kernel's global addresses are split into a program base
  /// and a per-access offset (hoist_addresses,
  /// gpu-hoist-uniform-addresses).
  bool hoistAddresses = false;
  /// The mapping this tuning is for; a kernel tuned for registers asks for
  /// them (mapping = registers).
  TileMapping mapping = TileMapping::sharedMemory;
  /// Pipelining depth of the dot operands a register kernel keeps in shared
  /// memory: 1, or 2 to copy them one loop trip ahead (stages).
  int64_t stages = 1;
};

/// The #tile.tuning attribute that records `tuning` on a kernel.
tile::TuningAttr toTuningAttr(MLIRContext *ctx, const KernelTuning &tuning);

/// The tuning of `kernel` when its tiles get `mapping`.
KernelTuning getKernelTuning(TunedKernel kernel, TileMapping mapping);

/// What, besides the kernel, decides which mapping runs it fastest: traits
/// of its buffers' shapes as compiled.
struct KernelShape {
  /// The batch dimension is static and 1 (B = 1, or varlen).
  bool singleBatch = false;
  /// The head counts are static.
  bool staticHeads = false;
  /// Sequences of their own lengths (cu_seqlens).
  bool varlen = false;
};

/// The mapping that runs `kernel` of shape `shape` fastest, by measurement:
/// the one the default pipeline gives it.
TileMapping getPreferredMapping(TunedKernel kernel, const KernelShape &shape);

} // namespace mlir::kda

#endif // KDA_TARGET_KERNELTUNING_H
