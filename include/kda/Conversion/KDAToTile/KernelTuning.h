//===- KernelTuning.h - what KDAToTile asks a target ------------*- C++ -*-===//
//
// convert-kda-to-tile builds each kernel for a launch shape (threads per
// program, register cap, live-tile budget, K-tile width, mapping, pipelining
// depth) that it does not choose: it asks a KernelTuningTarget, looked up by
// the name in the pass's `tuning` option, and records the answer on the
// kernel as its #tile.tuning attribute. The targets themselves (their
// numbers, each measured) live in lib/Target/Tuning and register here;
// nothing in KDAToTile knows a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_CONVERSION_KDATOTILE_KERNELTUNING_H
#define KDA_CONVERSION_KDATOTILE_KERNELTUNING_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <string>

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
  /// kda.decay_apply (kda-fuse-recurrence).
  decayApply,
  /// kda.chunk_recurrence (kda-fuse-recurrence).
  chunkRecurrence,
};

/// How one kernel runs on the GPU. A kernel carries it as its tile.tuning
/// attribute (toTuningAttr); the field comments name the attribute's
/// parameters.
struct KernelTuning {
  /// Threads per program (threads). Targets set the fields by name, so
  /// their order is free.
  int64_t numThreads = 0;
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
  /// Pipelining depth of a register kernel's loads in loops: 1, or 2 to
  /// load them one loop trip ahead (stages): the dot operands kept in
  /// shared memory into two slots, the register tiles as loop-carried
  /// values.
  int64_t stages = 1;
  /// Columns of V per program of kernels that split V over programs (the
  /// state scans and the chunk recurrence); 0 for the others, or for their
  /// default (block_v).
  int64_t blockV = 0;
  /// Whether the chunk recurrence holds its state transposed, as [BV, K]
  /// tiles with V rows along the dots' M, so that the state and the dot
  /// results that feed the next dot are A operands (transpose_state);
  /// false for every other kernel.
  bool transposeState = false;
};

/// The #tile.tuning attribute that records `tuning` on a kernel.
tile::TuningAttr toTuningAttr(MLIRContext *ctx, const KernelTuning &tuning);

/// What, besides the kernel, decides which mapping runs it fastest: traits
/// of its buffers' shapes as compiled.
struct KernelShape {
  /// The batch dimension is static and 1 (B = 1, or varlen).
  bool singleBatch = false;
  /// The head counts are static.
  bool staticHeads = false;
  /// Sequences of their own lengths (cu_seqlens).
  bool varlen = false;
  /// The state scans' and the chunk recurrence's K (rows of the state; 0
  /// for the other kernels).
  int64_t stateRows = 0;
  /// Their dots take 16-bit operands (bf16 or f16 I/O of one type).
  bool sixteenBitDots = false;
  /// A per-chunk stage (or l2norm, beta_activation) built as a part of the
  /// recurrent forward's fused per-chunk kernel; stateRows and
  /// sixteenBitDots then describe the forward's chunk recurrence.
  bool fusedChunkStage = false;
};

/// A target's choices for the kernels convert-kda-to-tile builds.
class KernelTuningTarget {
public:
  virtual ~KernelTuningTarget();

  /// The tuning of `kernel` when its tiles get `mapping` (with `mapping`
  /// recorded in it).
  virtual KernelTuning getKernelTuning(TunedKernel kernel,
                                       TileMapping mapping) const = 0;

  /// The mapping that runs `kernel` of shape `shape` fastest: the one the
  /// default pipeline gives it.
  virtual TileMapping getPreferredMapping(TunedKernel kernel,
                                          const KernelShape &shape) const = 0;

  /// The tuning of `kernel` built as a part of the recurrent forward's
  /// fused per-chunk kernel (`shape.fusedChunkStage`; the fused kernel
  /// takes its parts' tunings together, kda-fuse-tile-launches). By
  /// default the kernel's own tuning for the mapping getPreferredMapping
  /// gives it.
  virtual KernelTuning getFusedChunkStageTuning(TunedKernel kernel,
                                                const KernelShape &shape) const;
};

/// Makes `target` the tuning target called `name` (the value of
/// convert-kda-to-tile's `tuning` option that selects it). Registering a
/// name twice keeps the first target. Safe to call from several threads.
void registerKernelTuningTarget(llvm::StringRef name,
                                std::unique_ptr<KernelTuningTarget> target);

/// The tuning target registered as `name`, or null.
const KernelTuningTarget *lookupKernelTuningTarget(llvm::StringRef name);

/// The registered names, comma-separated and sorted (for error messages).
std::string registeredKernelTuningTargets();

} // namespace mlir::kda

#endif // KDA_CONVERSION_KDATOTILE_KERNELTUNING_H
