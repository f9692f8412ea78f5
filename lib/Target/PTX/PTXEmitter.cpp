//===- PTXEmitter.cpp - compile a kda module to PTX -----------------------===//

#include "kda/Target/PTXEmitter.h"

#include "PTXMerge.h"

#include "kda/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/FileSystem.h"

#include <cstdlib>

using namespace mlir;

/// True when `toolkit` holds libdevice.
static bool hasLibdevice(StringRef toolkit) {
  return !toolkit.empty() &&
         llvm::sys::fs::exists(toolkit + "/nvvm/libdevice/libdevice.10.bc");
}

std::string kda::getDefaultCudaToolkitPath() {
  SmallVector<std::string> candidates;
  for (const char *name : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(name); value && *value)
      candidates.push_back(value);
  candidates.push_back(KDA_CONFIGURED_CUDA_TOOLKIT);
  candidates.push_back("/usr/local/cuda");
  for (const std::string &candidate : candidates)
    if (hasLibdevice(candidate))
      return candidate;
  return "";
}

/// Checks that `chip` names an NVIDIA architecture: sm_<digits>[a|f].
static bool isValidChip(StringRef chip) {
  if (!chip.consume_front("sm_"))
    return false;
  if (chip.ends_with("a") || chip.ends_with("f"))
    chip = chip.drop_back();
  unsigned version;
  return !chip.empty() && !chip.getAsInteger(10, version) && version >= 50;
}

FailureOr<std::string> kda::compileToPTX(ModuleOp module,
                                         const PTXEmitterOptions &options) {
  if (!isValidChip(options.chip))
    return emitError(module.getLoc())
           << "unknown GPU architecture '" << options.chip
           << "' (expected sm_<NN> with NN >= 50, optionally followed by 'a' "
              "or 'f', e.g. sm_90 or sm_90a)";
  if (options.maxRegisters < 0 || options.maxRegisters > 255)
    return emitError(module.getLoc())
           << "--max-registers must be in [0, 255] (0: ptxas decides), got "
           << options.maxRegisters;
  if (!options.toolkit.empty() && !hasLibdevice(options.toolkit))
    return emitError(module.getLoc())
           << "CUDA toolkit '" << options.toolkit
           << "' has no nvvm/libdevice/libdevice.10.bc";
  PassManager pm(module.getContext());
  KDAToPTXPipelineOptions pipelineOptions;
  pipelineOptions.chip = options.chip;
  pipelineOptions.features = options.features;
  pipelineOptions.toolkit =
      options.toolkit.empty() ? getDefaultCudaToolkitPath() : options.toolkit;
  pipelineOptions.format = "isa";
  pipelineOptions.maxRegisters = options.maxRegisters;
  pipelineOptions.registerTiles = options.registerTiles;
  pipelineOptions.assignLayouts = options.assignLayouts;
  pipelineOptions.registerRecurrences = options.registerRecurrences;
  pipelineOptions.prefetch = options.prefetch;
  pipelineOptions.warpShuffles = options.warpShuffles;
  pipelineOptions.duplicateSmallOperands = options.duplicateSmallOperands;
  pipelineOptions.scanLayouts = options.scanLayouts;
  pipelineOptions.addressHoisting = options.addressHoisting;
  options.stages.applyTo(pipelineOptions);
  buildKDAToPTXPipeline(pm, pipelineOptions);
  if (failed(pm.run(module)))
    return failure();

  // One PTX module per gpu.module (one per kernel), joined into one file.
  SmallVector<std::string> modules;
  WalkResult result = module.walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjectsAttr()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (!object || object.getFormat() != gpu::CompilationTarget::Assembly) {
        emitError(binary.getLoc(), "expected a PTX (assembly) object in gpu.binary");
        return WalkResult::interrupt();
      }
      StringRef text = object.getObject().getValue();
      // The serializer keeps a trailing NUL that ptxas rejects.
      while (!text.empty() && text.back() == '\0')
        text = text.drop_back();
      modules.push_back(text.str());
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  if (modules.empty())
    return emitError(module.getLoc(),
                     "the module has no kda ops or tile kernels, so there is "
                     "no PTX to emit");
  std::string error;
  FailureOr<std::string> ptx = mergePTXModules(modules, error);
  if (failed(ptx))
    return emitError(module.getLoc()) << "cannot join the kernels' PTX: "
                                      << error;
  return ptx;
}

LogicalResult kda::emitPTX(ModuleOp module, const PTXEmitterOptions &options,
                           llvm::raw_ostream &os) {
  FailureOr<std::string> ptx = compileToPTX(module, options);
  if (failed(ptx))
    return failure();
  os << *ptx;
  return success();
}
