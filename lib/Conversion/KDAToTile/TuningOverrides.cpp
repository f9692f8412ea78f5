//===- TuningOverrides.cpp - kernel tuning changed from the command line --===//
//
// Parses convert-kda-to-tile's `tuning-override` entries and wraps the
// kernel tuning target so that every tuning it returns has them applied.
//
//===----------------------------------------------------------------------===//

#include "kda/Conversion/KDAToTile/TuningOverrides.h"

#include "StageLowering.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <vector>

using namespace mlir;
using namespace mlir::kda;

/// Every tuned kernel, in the enum's order.
static constexpr TunedKernel kAllKernels[] = {
    TunedKernel::l2norm,          TunedKernel::betaActivation,
    TunedKernel::gate,            TunedKernel::gatePrecomputed,
    TunedKernel::intraDiagExact,  TunedKernel::intraDiagSafe,
    TunedKernel::interSolve,      TunedKernel::interSolveSafe,
    TunedKernel::interSolveIEEEMerge, TunedKernel::wyRecompute,
    TunedKernel::output,          TunedKernel::outputRegisterDots,
    TunedKernel::stateScan,       TunedKernel::stateScanFused,
    TunedKernel::decayApply,      TunedKernel::chunkRecurrence};
static_assert(std::size(kAllKernels) ==
                  static_cast<size_t>(TunedKernel::chunkRecurrence) + 1,
              "kAllKernels lists every TunedKernel");

/// The name that stands for every per-chunk stage kernel (isChunkStageKernel:
/// the parts of the fused per-chunk kernel).
static constexpr llvm::StringLiteral kChunkStagesName = "chunk_stages";

llvm::StringRef kda::getTunedKernelName(TunedKernel kernel) {
  switch (kernel) {
  case TunedKernel::l2norm:
    return "l2norm";
  case TunedKernel::betaActivation:
    return "beta_activation";
  case TunedKernel::gate:
    return "gate";
  case TunedKernel::gatePrecomputed:
    return "gate_precomputed";
  case TunedKernel::intraDiagExact:
    return "intra_diag_exact";
  case TunedKernel::intraDiagSafe:
    return "intra_diag_safe";
  case TunedKernel::interSolve:
    return "inter_solve";
  case TunedKernel::interSolveSafe:
    return "inter_solve_safe";
  case TunedKernel::interSolveIEEEMerge:
    return "inter_solve_ieee_merge";
  case TunedKernel::wyRecompute:
    return "wy_recompute";
  case TunedKernel::output:
    return "output";
  case TunedKernel::outputRegisterDots:
    return "output_register_dots";
  case TunedKernel::stateScan:
    return "state_scan";
  case TunedKernel::stateScanFused:
    return "state_scan_fused";
  case TunedKernel::decayApply:
    return "decay_apply";
  case TunedKernel::chunkRecurrence:
    return "chunk_recurrence";
  }
  llvm_unreachable("unknown tuned kernel");
}

namespace {
/// The #tile.tuning parameters an override may set.
enum class TuningKey {
  threads,
  maxRegisters,
  maxLiveBytes,
  blockK,
  blockV,
  speculateLoads,
  hoistAddresses,
  stages,
  mapping,
  transposeState,
};

/// Every key, by the name an override spells it with, in the order error
/// messages list them.
constexpr std::pair<llvm::StringLiteral, TuningKey> kKeys[] = {
    {"threads", TuningKey::threads},
    {"max_registers", TuningKey::maxRegisters},
    {"max_live_bytes", TuningKey::maxLiveBytes},
    {"block_k", TuningKey::blockK},
    {"block_v", TuningKey::blockV},
    {"speculate_loads", TuningKey::speculateLoads},
    {"hoist_addresses", TuningKey::hoistAddresses},
    {"stages", TuningKey::stages},
    {"mapping", TuningKey::mapping},
    {"transpose_state", TuningKey::transposeState},
};

/// One parsed `KERNEL.KEY=VALUE` entry.
struct Override {
  /// The kernels it applies to (one, or every per-chunk stage).
  std::vector<TunedKernel> kernels;
  TuningKey key;
  /// The value; for `mapping`, 1 for registers and 0 for shared memory.
  int64_t value;
};

/// Sets `key` of `tuning` to `value`.
void apply(KernelTuning &tuning, TuningKey key, int64_t value) {
  switch (key) {
  case TuningKey::threads:
    tuning.numThreads = value;
    return;
  case TuningKey::maxRegisters:
    tuning.maxRegisters = value;
    return;
  case TuningKey::maxLiveBytes:
    tuning.maxLiveBytes = value;
    return;
  case TuningKey::blockK:
    tuning.blockK = value;
    return;
  case TuningKey::blockV:
    tuning.blockV = value;
    return;
  case TuningKey::speculateLoads:
    tuning.speculateLoads = value != 0;
    return;
  case TuningKey::hoistAddresses:
    tuning.hoistAddresses = value != 0;
    return;
  case TuningKey::stages:
    tuning.stages = value;
    return;
  case TuningKey::mapping:
    tuning.mapping =
        value ? TileMapping::registers : TileMapping::sharedMemory;
    return;
  case TuningKey::transposeState:
    tuning.transposeState = value != 0;
    return;
  }
}

/// The base target's answers with the overrides applied.
struct OverriddenTuningTarget : KernelTuningTarget {
  OverriddenTuningTarget(const KernelTuningTarget &base,
                         std::vector<Override> overrides)
      : base(base), overrides(std::move(overrides)) {}

  KernelTuning getKernelTuning(TunedKernel kernel,
                               TileMapping mapping) const override {
    return overridden(kernel, base.getKernelTuning(kernel, mapping));
  }
  TileMapping getPreferredMapping(TunedKernel kernel,
                                  const KernelShape &shape) const override {
    return base.getPreferredMapping(kernel, shape);
  }
  KernelTuning
  getFusedChunkStageTuning(TunedKernel kernel,
                           const KernelShape &shape) const override {
    return overridden(kernel, base.getFusedChunkStageTuning(kernel, shape));
  }

  /// `tuning` of `kernel` with the overrides that name it applied.
  KernelTuning overridden(TunedKernel kernel, KernelTuning tuning) const {
    for (const Override &entry : overrides)
      if (llvm::is_contained(entry.kernels, kernel))
        apply(tuning, entry.key, entry.value);
    return tuning;
  }

  const KernelTuningTarget &base;
  std::vector<Override> overrides;
};

/// The error for entry `text`: `problem`.
llvm::Error overrideError(llvm::StringRef text, const llvm::Twine &problem) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "tuning-override '" + text + "': " + problem);
}

/// `text` (`KERNEL.KEY=VALUE`) parsed and checked.
llvm::Expected<Override> parseOverride(llvm::StringRef text) {
  auto [target, valueText] = text.split('=');
  auto [kernelName, keyName] = target.split('.');
  if (valueText.empty() || keyName.empty())
    return overrideError(text, "expected KERNEL.KEY=VALUE, e.g. "
                               "chunk_recurrence.threads=256");
  std::vector<TunedKernel> kernels;
  for (TunedKernel k : kAllKernels)
    if (getTunedKernelName(k) == kernelName ||
        (kernelName == kChunkStagesName && isChunkStageKernel(k)))
      kernels.push_back(k);
  if (kernels.empty()) {
    std::vector<std::string> names;
    for (TunedKernel k : kAllKernels)
      names.push_back(getTunedKernelName(k).str());
    names.push_back(kChunkStagesName.str());
    return overrideError(text, "no tuned kernel '" + kernelName +
                                   "' (the kernels: " +
                                   llvm::join(names, ", ") + ")");
  }
  std::optional<TuningKey> key;
  for (const auto &[name, k] : kKeys)
    if (name == keyName)
      key = k;
  if (!key) {
    std::vector<llvm::StringRef> names;
    for (const auto &entry : kKeys)
      names.push_back(entry.first);
    return overrideError(text, "no tuning key '" + keyName + "' (the keys: " +
                                   llvm::join(names, ", ") + ")");
  }
  int64_t value;
  if (*key == TuningKey::mapping) {
    if (valueText != "registers" && valueText != "shared_memory")
      return overrideError(text, "mapping is registers or shared_memory");
    return Override{std::move(kernels), *key, valueText == "registers"};
  }
  if (valueText == "true")
    value = 1;
  else if (valueText == "false")
    value = 0;
  else if (valueText.getAsInteger(10, value))
    return overrideError(text, "the value '" + valueText +
                                   "' is not an integer, true or false");
  bool isBool = *key == TuningKey::speculateLoads ||
                *key == TuningKey::hoistAddresses ||
                *key == TuningKey::transposeState;
  if (isBool && value != 0 && value != 1)
    return overrideError(text, keyName + " is true or false");
  if (*key == TuningKey::transposeState &&
      (kernels.size() != 1 || kernels[0] != TunedKernel::chunkRecurrence))
    return overrideError(text, "transpose_state applies to chunk_recurrence "
                               "only");
  if (*key == TuningKey::threads &&
      (value < 32 || value > 1024 || value % 32 != 0))
    return overrideError(text, "threads must be a multiple of 32 from 32 to "
                               "1024");
  if (*key == TuningKey::maxRegisters && value != 0 &&
      (value < 24 || value > 255))
    return overrideError(text, "max_registers must be 0 (none) or from 24 "
                               "to 255");
  if (*key == TuningKey::stages &&
      (value < 1 || value > tile::TuningAttr::kMaxStages))
    return overrideError(text, "stages must be from 1 to " +
                                   std::to_string(tile::TuningAttr::kMaxStages));
  if ((*key == TuningKey::maxLiveBytes || *key == TuningKey::blockK ||
       *key == TuningKey::blockV) &&
      value < 0)
    return overrideError(text, keyName + " must not be negative");
  if (*key == TuningKey::blockK && value != 0 &&
      (value < 8 || !llvm::isPowerOf2_64(value)))
    return overrideError(text, "block_k must be 0 or a power of 2 of at "
                               "least 8");
  if (*key == TuningKey::blockV && value != 0 &&
      (value < 8 || value > 128 || !llvm::isPowerOf2_64(value)))
    return overrideError(text, "block_v must be 0 (the kernel's default) or "
                               "a power of 2 from 8 to 128");
  return Override{std::move(kernels), *key, value};
}
} // namespace

llvm::Expected<std::unique_ptr<KernelTuningTarget>>
kda::createOverriddenTuningTarget(const KernelTuningTarget &base,
                                  llvm::ArrayRef<std::string> overrides) {
  std::vector<Override> parsed;
  for (const std::string &text : overrides) {
    llvm::Expected<Override> entry = parseOverride(text);
    if (!entry)
      return entry.takeError();
    parsed.push_back(*entry);
  }
  return std::make_unique<OverriddenTuningTarget>(base, std::move(parsed));
}
