//===- PTXEmitter.cpp - compile a kda module to PTX -----------------------===//

#include "kda/Target/PTXEmitter.h"

#include "kda/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"

#include <cstdlib>

using namespace mlir;

std::string kda::getDefaultCudaToolkitPath() {
  for (const char *name : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(name); value && *value)
      return value;
  return KDA_CONFIGURED_CUDA_TOOLKIT;
}

LogicalResult kda::emitPTX(ModuleOp module, const PTXEmitterOptions &options,
                           llvm::raw_ostream &os) {
  PassManager pm(module.getContext());
  KDAToPTXPipelineOptions pipelineOptions;
  pipelineOptions.chip = options.chip;
  pipelineOptions.features = options.features;
  pipelineOptions.toolkit =
      options.toolkit.empty() ? getDefaultCudaToolkitPath() : options.toolkit;
  pipelineOptions.format = "isa";
  buildKDAToPTXPipeline(pm, pipelineOptions);
  if (failed(pm.run(module)))
    return failure();

  bool found = false;
  WalkResult result = module.walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjectsAttr()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (!object || object.getFormat() != gpu::CompilationTarget::Assembly) {
        binary.emitError("expected a PTX (assembly) object in gpu.binary");
        return WalkResult::interrupt();
      }
      StringRef ptx = object.getObject().getValue();
      // The serializer keeps a trailing NUL that ptxas rejects.
      while (!ptx.empty() && ptx.back() == '\0')
        ptx = ptx.drop_back();
      os << ptx;
      if (!ptx.ends_with("\n"))
        os << "\n";
      found = true;
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  if (!found)
    return module.emitError("the module has no kda ops or tile kernels, so "
                            "there is no PTX to emit");
  return success();
}
