//===- PTXEmitter.h - compile a kda module to PTX ---------------*- C++ -*-===//

#ifndef KDA_TARGET_PTXEMITTER_H
#define KDA_TARGET_PTXEMITTER_H

#include "kda/Pipelines/Pipelines.h"
#include "kda/Target/KernelTuning.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::kda {

/// Options of PTX emission.
struct PTXEmitterOptions {
  /// GPU architecture, e.g. "sm_90" or "sm_90a".
  std::string chip = "sm_90";
  /// PTX ISA features; sm_90 needs at least +ptx80.
  std::string features = "+ptx80";
  /// CUDA toolkit directory used to link libdevice (empty: environment, then
  /// the toolkit found when the compiler was configured).
  std::string toolkit;
  /// Register limit per thread of every kernel (PTX .maxnreg); 0 leaves it
  /// to ptxas.
  int64_t maxRegisters = 0;
  /// Kernels whose tiles carry #tile.dist layouts run on registers
  /// (convert-tile-to-simt), and those the target's kernel tuning runs on
  /// registers get layouts first; when false every kernel runs on the
  /// shared-memory mapping.
  bool registerTiles = true;
  /// Every kernel without layouts that can run on registers gets layouts
  /// first (kda-assign-tile-layouts).
  bool assignLayouts = false;
  /// Only the recurrence kernels (the state scan) get layouts and run on
  /// registers (kda-assign-tile-layouts only-recurrences).
  bool registerRecurrences = false;
  /// On registers, a loop's tiles are loaded one trip ahead: dot operands
  /// kept in shared memory and register tiles (convert-tile-to-simt
  /// prefetch).
  bool prefetch = false;
  /// Layout changes within each warp by shfl.sync.idx (convert-tile-to-simt
  /// warp-shuffles) instead of through shared memory.
  bool warpShuffles = false;
  /// Compute small computed A operands of recurrences in every warp
  /// (kda-assign-tile-layouts duplicate-small-operands).
  bool duplicateSmallOperands = false;
  /// Scans keep their dimension within each warp
  /// (kda-assign-tile-layouts scan-layouts).
  bool scanLayouts = true;
  /// Which kernels compute their global addresses as a program base plus
  /// a per-access offset (gpu-hoist-uniform-addresses).
  AddressHoisting addressHoisting = AddressHoisting::tuned;
  /// How the forward's stages are grouped into kernels and built (the
  /// pipelines' KDA_STAGE_OPTIONS); the bundle's CPU build takes the same.
  StageOptions stages;
};

/// Runs the kda-to-ptx pipeline on `module` (in place) and returns the PTX
/// of its GPU module. Emits diagnostics and returns failure on any error.
FailureOr<std::string> compileToPTX(ModuleOp module,
                                    const PTXEmitterOptions &options);

/// Runs the kda-to-ptx pipeline on `module` (in place) and writes the PTX of
/// every resulting GPU module to `os`. Emits diagnostics and returns failure
/// on any error.
LogicalResult emitPTX(ModuleOp module, const PTXEmitterOptions &options,
                      llvm::raw_ostream &os);

/// The CUDA toolkit directory to use when none is given: the first of
/// CUDA_ROOT, CUDA_HOME, CUDA_PATH (from the environment), the toolkit found
/// at configure time and /usr/local/cuda that holds libdevice; else empty.
std::string getDefaultCudaToolkitPath();

} // namespace mlir::kda

#endif // KDA_TARGET_PTXEMITTER_H
