//===- KernelTuning.cpp - the registry of kernel tuning targets -----------===//
//
// The targets convert-kda-to-tile can ask for its kernels' tuning, by name,
// and how a tuning is recorded on a kernel (#tile.tuning).
//
//===----------------------------------------------------------------------===//

#include "kda/Conversion/KDAToTile/KernelTuning.h"

#include "kda/Dialect/Tile/TileDialect.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <mutex>
#include <vector>

using namespace mlir;
using namespace mlir::kda;

KernelTuningTarget::~KernelTuningTarget() = default;

KernelTuning
KernelTuningTarget::getFusedChunkStageTuning(TunedKernel kernel,
                                             const KernelShape &shape) const {
  return getKernelTuning(kernel, getPreferredMapping(kernel, shape));
}

namespace {
/// The registered targets. Entries are never removed, so a pointer handed
/// out stays valid.
struct Registry {
  std::mutex mutex;
  llvm::StringMap<std::unique_ptr<KernelTuningTarget>> targets;
};
Registry &registry() {
  static Registry instance;
  return instance;
}
} // namespace

void kda::registerKernelTuningTarget(
    llvm::StringRef name, std::unique_ptr<KernelTuningTarget> target) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.targets.try_emplace(name, std::move(target));
}

const KernelTuningTarget *kda::lookupKernelTuningTarget(llvm::StringRef name) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.targets.find(name);
  return it == r.targets.end() ? nullptr : it->second.get();
}

std::string kda::registeredKernelTuningTargets() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto &entry : r.targets)
    names.push_back(entry.getKey().str());
  std::sort(names.begin(), names.end());
  return llvm::join(names, ", ");
}

tile::TuningAttr kda::toTuningAttr(MLIRContext *ctx,
                                   const KernelTuning &tuning) {
  return tile::TuningAttr::get(
      ctx, tuning.numThreads, tuning.maxRegisters, tuning.maxLiveBytes,
      tuning.blockK, tuning.blockV, tuning.speculateLoads,
      tuning.hoistAddresses,
      tuning.mapping == TileMapping::registers
          ? tile::KernelMapping::registers
          : tile::KernelMapping::shared_memory,
      tuning.stages, tuning.transposeState);
}
