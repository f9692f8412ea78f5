//===- Pipelines.cpp - kda lowering pipelines -----------------------------===//

#include "kda/Pipelines/Pipelines.h"

#include "kda/Conversion/Passes.h"
#include "kda/Dialect/KDA/KDAOps.h"
#include "kda/Target/KernelTuning.h"
#include "kda/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::kda;

ForwardForm mlir::kda::preferredForwardForm(ModuleOp module) {
  bool anyForward = false, allPreferRecurrent = true, staticHeads = true;
  module.walk([&](ChunkFwdOp op) {
    anyForward = true;
    auto q = cast<RankedTensorType>(op.getQ().getType());
    auto v = cast<RankedTensorType>(op.getV().getType());
    if (q.isDynamicDim(2) || v.isDynamicDim(2))
      staticHeads = false;
    Type element = q.getElementType();
    bool oneType = getElementTypeOrSelf(op.getK().getType()) == element &&
                   getElementTypeOrSelf(op.getV().getType()) == element;
    ForwardOperands operands = ForwardOperands::mixed;
    if (oneType && (element.isBF16() || element.isF16()))
      operands = ForwardOperands::sixteenBit;
    else if (oneType && element.isF32())
      operands = ForwardOperands::f32;
    if (!prefersRecurrentForward(q.getShape().back(), operands))
      allPreferRecurrent = false;
  });
  ForwardForm form;
  if (!anyForward || !allPreferRecurrent)
    return form;
  // The recurrent form's chunk, measured on an H100 (docs/performance.md,
  // 2026-12-06): 2.196 ms at 16 against 2.771 at 32 (B=1 T=8192 H=96).
  constexpr int64_t kRecurrentChunkSize = 16;
  form.stages.chunkSize = kRecurrentChunkSize;
  form.stages.recurrence = true;
  form.stages.chunkKernels = true;
  // l2norm and the beta sigmoid (when the program has them) in the fused
  // per-chunk kernel, which runs on registers (preferredMapping in
  // KernelTuning.cpp): FlashKDA's flags at B=1 T=8192 H=96, 2.424 against
  // 2.531 ms in kernels of their own (H100, docs/performance.md).
  form.stages.preprocessing = true;
  // Measured with static head counts (1-8 % faster). With dynamic ones the
  // chunk recurrence's addresses take more registers and, at its cap of
  // 168, ptxas 13.0 spills 92 bytes with duplicated operands against 4
  // without (the embedded fwd_k128_bf16_default): off there until measured.
  form.duplicateSmallOperands = staticHeads;
  return form;
}

/// Which kernels run on registers (kda-assign-tile-layouts, then
/// convert-tile-to-simt) on the GPU.
enum class RegisterKernels {
  /// None: every kernel on the shared-memory mapping (and the CPU path).
  none,
  /// Those whose target tuning prefers registers (the default).
  tuned,
  /// The recurrences (the state scan).
  recurrences,
  /// Every kernel that can.
  all,
};

/// kda ops to tile kernels, then to linalg on tensors. `mapping` is
/// convert-kda-to-tile's: the mapping whose tuning each kernel takes. The
/// kernels that `kernels` names become per-thread code on registers first
/// (the GPU); the others, and kernels written with layouts when `kernels`
/// is none, lose their layouts. The intermediates that only a fused
/// per-chunk kernel touches move into per-program buffers in
/// `privateSpace` (kda-privatize-chunk-buffers).
static void buildTileAndLinalgPipeline(OpPassManager &pm, StageOptions stages,
                                       StringRef mapping,
                                       RegisterKernels kernels, bool prefetch,
                                       bool warpShuffles,
                                       bool duplicateSmallOperands,
                                       bool scanLayouts, int64_t numThreads,
                                       StringRef privateSpace) {
  pm.addPass(createConvertChunkFwdToStagesPass({stages.chunkSize}));
  // The recurrent form first: it takes the scan and the output whether or
  // not kda-fuse-scan-output has joined them.
  if (stages.recurrence)
    pm.addPass(createFuseRecurrencePass());
  if (stages.scanOutput)
    pm.addPass(createFuseScanOutputPass());
  // The kernels take the Hopper tuning (measured on an H200), on the CPU
  // too, so that a bundle's CPU build runs the GPU build's tile programs.
  registerHopperKernelTuning();
  ConvertKDAToTilePassOptions toTile;
  toTile.tuning = kHopperTuningName.str();
  toTile.mapping = mapping.str();
  // The per-chunk stages built for one fused kernel (the gate partitioned
  // per chunk, every stage with the fused kernel's shared-memory tuning).
  toTile.fusableChunkStages = stages.chunkKernels;
  toTile.fusePreprocessing = stages.chunkKernels && stages.preprocessing;
  toTile.exactDiagonalFactoring = stages.exactDiagonalFactoring;
  toTile.exactDiagonalRows = stages.exactDiagonalRows;
  toTile.approximateSigmoid = stages.approximateSigmoid;
  toTile.tuningOverrides.assign(stages.tuningOverrides.begin(),
                                stages.tuningOverrides.end());
  pm.addPass(createConvertKDAToTilePass(toTile));
  pm.addPass(createCanonicalizerPass());
  if (stages.chunkKernels) {
    // CSE first: launches over one grid then name it by one value.
    pm.addPass(createCSEPass());
    pm.addPass(createFuseTileLaunchesPass());
    pm.addPass(createPrivatizeChunkBuffersPass({privateSpace.str()}));
  }
  pm.addPass(createHoistTileLoadsPass());
  if (kernels != RegisterKernels::none) {
    AssignTileLayoutsPassOptions assign;
    assign.numThreadsDefault = numThreads;
    assign.onlyRecurrences = kernels == RegisterKernels::recurrences;
    assign.onlyRequested = kernels == RegisterKernels::tuned;
    assign.duplicateSmallOperands = duplicateSmallOperands;
    assign.scanLayouts = scanLayouts;
    pm.addPass(createAssignTileLayoutsPass(assign));
    pm.addPass(createConvertTileToSIMTPass({numThreads, prefetch, warpShuffles}));
  }
  pm.addPass(createDropTileLayoutsPass());
  pm.addPass(createConvertTileToLinalgPass());
  // Function by function (each kernel and the host), side by side.
  OpPassManager &perFunction = pm.nest<func::FuncOp>();
  perFunction.addPass(createCanonicalizerPass());
  perFunction.addPass(createCSEPass());
}

void kda::buildKDAToLinalgPipeline(OpPassManager &pm,
                                   const KDAPipelineOptions &options) {
  // The tile programs of the default GPU mapping, for the CPU.
  buildTileAndLinalgPipeline(pm, StageOptions::of(options), "tuned",
                             RegisterKernels::none, /*prefetch=*/false,
                             /*warpShuffles=*/false,
                             /*duplicateSmallOperands=*/false,
                             /*scanLayouts=*/false, /*numThreads=*/0,
                             "default");
}

void kda::buildKDAToPTXPipeline(OpPassManager &pm,
                                const KDAToPTXPipelineOptions &options) {
  RegisterKernels kernels = RegisterKernels::tuned;
  StringRef mapping = "tuned";
  if (!options.registerTiles) {
    kernels = RegisterKernels::none;
    mapping = "shared-memory";
  } else if (options.assignLayouts) {
    kernels = RegisterKernels::all;
    mapping = "registers";
  } else if (options.registerRecurrences) {
    kernels = RegisterKernels::recurrences;
    mapping = "recurrences-on-registers";
  }
  buildTileAndLinalgPipeline(pm, StageOptions::of(options), mapping, kernels,
                             options.prefetch, options.warpShuffles,
                             options.duplicateSmallOperands,
                             options.scanLayouts, options.numThreads,
                             "workgroup");
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
  gpuPm.addPass(createGPUExternDynamicSharedMemoryPass());
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  gpuPm.addPass(createReconcileUnrealizedCastsPass());
  if (options.addressHoisting != AddressHoisting::none) {
    GPUHoistUniformAddressesPassOptions hoisting;
    hoisting.allKernels = options.addressHoisting == AddressHoisting::all;
    gpuPm.addPass(createGPUHoistUniformAddressesPass(hoisting));
    gpuPm.addPass(createCanonicalizerPass());
    gpuPm.addPass(createCSEPass());
  }

  SerializeGPUModulesPassOptions binary;
  binary.format = options.format;
  binary.toolkit = options.toolkit;
  pm.addPass(createSerializeGPUModulesPass(binary));
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
