//===- TestKernelTuning.cpp - a kernel tuning target for tests ------------===//
//
// "test-uniform": every kernel on the shared-memory mapping (or the one
// asked for) with 32 threads, K tiles of 16 columns and no other choice.
// Registered by kda-opt only, so that lit tests show convert-kda-to-tile
// building kernels for a target other than the Hopper one.
//
//===----------------------------------------------------------------------===//

#include "TestKernelTuning.h"

#include "kda/Conversion/KDAToTile/KernelTuning.h"

#include <memory>

using namespace mlir::kda;

namespace {
struct UniformKernelTuning : KernelTuningTarget {
  KernelTuning getKernelTuning(TunedKernel,
                               TileMapping mapping) const override {
    KernelTuning tuning;
    tuning.numThreads = 32;
    tuning.blockK = 16;
    tuning.mapping = mapping;
    return tuning;
  }
  TileMapping getPreferredMapping(TunedKernel,
                                  const KernelShape &) const override {
    return TileMapping::sharedMemory;
  }
};
} // namespace

void mlir::kda::registerTestKernelTuning() {
  registerKernelTuningTarget("test-uniform",
                             std::make_unique<UniformKernelTuning>());
}
