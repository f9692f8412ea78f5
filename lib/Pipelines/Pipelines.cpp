//===- Pipelines.cpp - kda lowering pipelines -----------------------------===//

#include "kda/Pipelines/Pipelines.h"

#include "kda/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::kda;

/// kda ops to tile kernels, then to linalg on tensors; kernels with
/// register tiles become per-thread code first when `registerTiles` is set
/// (the GPU), and lose their layouts otherwise.
static void buildTileAndLinalgPipeline(OpPassManager &pm, bool fuseScanOutput,
                                       bool registerTiles, bool assignLayouts,
                                       bool registerRecurrences, bool prefetch,
                                       int64_t numThreads) {
  pm.addPass(createConvertChunkFwdToStagesPass());
  if (fuseScanOutput)
    pm.addPass(createFuseScanOutputPass());
  // Kernels that will get layouts take the register mapping's tuning.
  ConvertKDAToTilePassOptions toTile;
  toTile.registerLayouts = registerTiles && assignLayouts;
  pm.addPass(createConvertKDAToTilePass(toTile));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createHoistTileLoadsPass());
  if (registerTiles && (assignLayouts || registerRecurrences))
    pm.addPass(createAssignTileLayoutsPass(
        {numThreads, /*remarks=*/false,
         /*onlyRecurrences=*/!assignLayouts && registerRecurrences}));
  if (registerTiles)
    pm.addPass(createConvertTileToSIMTPass({numThreads, prefetch}));
  pm.addPass(createDropTileLayoutsPass());
  pm.addPass(createConvertTileToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void kda::buildKDAToLinalgPipeline(OpPassManager &pm,
                                   const KDAPipelineOptions &options) {
  buildTileAndLinalgPipeline(pm, options.fuseScanOutput,
                             /*registerTiles=*/false,
                             /*assignLayouts=*/false,
                             /*registerRecurrences=*/false, /*prefetch=*/false,
                             /*numThreads=*/0);
}

void kda::buildKDAToPTXPipeline(OpPassManager &pm,
                                const KDAToPTXPipelineOptions &options) {
  buildTileAndLinalgPipeline(pm, options.fuseScanOutput, options.registerTiles,
                             options.assignLayouts,
                             options.registerRecurrences, options.prefetch,
                             options.numThreads);
  pm.addPass(createKDABufferizeTilesPass({"workgroup"}));
  pm.addPass(
      createConvertTileToGPUPass({options.numThreads, options.maxRegisters}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));

  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  gpuPm.addPass(createVerifyGPUKernelParamsPass());
  gpuPm.addPass(memref::createExpandStridedMetadataPass());
  gpuPm.addPass(createLowerAffinePass());
  gpuPm.addPass(createSCFToControlFlowPass());
  gpuPm.addPass(createConvertGPUExp2ToIntrinsicPass());
  gpuPm.addPass(createGPUFPContractPass());
  gpuPm.addPass(createConvertNVGPUToNVVMPass());
  gpuPm.addPass(createConvertGpuOpsToNVVMOps());
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  gpuPm.addPass(createReconcileUnrealizedCastsPass());

  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void kda::buildKDAToCPUPipeline(OpPassManager &pm,
                                const KDAPipelineOptions &options) {
  buildKDAToLinalgPipeline(pm, options);
  pm.addPass(createKDABufferizeTilesPass({"default"}));
  pm.addPass(createConvertTileToCPUPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  // bf16 conversions as integer arithmetic: the CPU build is compiled for
  // generic x86-64, where LLVM would otherwise call __truncsfbf2, which not
  // every libgcc has (GCC 13 added it).
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void kda::registerKDAPipelines() {
  PassPipelineRegistration<KDAPipelineOptions>(
      "kda-to-linalg-pipeline",
      "Lower kda ops to tile kernels and then to linalg on tensors",
      buildKDAToLinalgPipeline);
  PassPipelineRegistration<KDAToPTXPipelineOptions>(
      "kda-to-ptx-pipeline",
      "Lower kda ops to gpu.binary holding PTX (or cubin) for NVIDIA GPUs",
      buildKDAToPTXPipeline);
  PassPipelineRegistration<KDAPipelineOptions>(
      "kda-to-cpu-pipeline",
      "Lower kda ops to LLVM-dialect host code that runs the program grid "
      "in loops",
      buildKDAToCPUPipeline);
}
