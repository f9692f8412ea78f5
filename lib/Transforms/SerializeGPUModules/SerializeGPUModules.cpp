//===- SerializeGPUModules.cpp - gpu.modules to binaries, in parallel -----===//
//
// Upstream gpu-module-to-binary compiles the gpu.modules of a program one
// after the other. For the whole forward (six kernels) that is most of the
// compile time: LLVM's optimization and the NVPTX code generator took 1.6 s
// of a 2.7 s PTX build on one core. convert-tile-to-gpu gives each kernel a
// gpu.module of its own; this pass compiles them concurrently, each through
// its target attribute's own serializer (the same LLVM pipeline as
// upstream), largest first, then replaces each module by its gpu.binary in
// order.
//
//===----------------------------------------------------------------------===//

#include "kda/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"

#include "llvm/ADT/StringSwitch.h"

namespace mlir::kda {
#define GEN_PASS_DEF_SERIALIZEGPUMODULESPASS
#include "Transforms/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;

namespace {

/// The compilation target that `format` names (gpu-module-to-binary's
/// spellings), or std::nullopt.
std::optional<gpu::CompilationTarget> parseFormat(StringRef format) {
  return llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(format)
      .Cases({"isa", "assembly"}, gpu::CompilationTarget::Assembly)
      .Cases({"bin", "binary"}, gpu::CompilationTarget::Binary)
      .Cases({"fatbin", "fatbinary"}, gpu::CompilationTarget::Fatbin)
      .Cases({"llvm", "offloading"}, gpu::CompilationTarget::Offload)
      .Default(std::nullopt);
}

/// Fails, reporting the first, when an op of `gpuModule` has a type that
/// LLVM IR cannot express (an `index` element in an `!llvm.array`, say):
/// the LLVM IR translation would crash on it rather than report it.
LogicalResult checkLLVMTypes(gpu::GPUModuleOp gpuModule) {
  auto check = [](Operation *op, Type type) -> LogicalResult {
    if (LLVM::isCompatibleType(type))
      return success();
    return op->emitOpError() << "has type " << type
                             << ", which LLVM IR cannot express";
  };
  WalkResult result = gpuModule.walk([&](Operation *op) {
    if (auto global = dyn_cast<LLVM::GlobalOp>(op))
      if (failed(check(op, global.getGlobalType())))
        return WalkResult::interrupt();
    if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op))
      if (failed(check(op, func.getFunctionType())))
        return WalkResult::interrupt();
    for (Type type : op->getResultTypes())
      if (failed(check(op, type)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(check(op, arg.getType())))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Compiles `gpuModule` for each of its targets; returns the objects, or
/// failure after reporting why.
FailureOr<SmallVector<Attribute>>
serializeModule(gpu::GPUModuleOp gpuModule,
                const gpu::TargetOptions &options) {
  if (failed(checkLLVMTypes(gpuModule)))
    return failure();
  ArrayAttr targets = gpuModule.getTargetsAttr();
  if (!targets || targets.empty())
    return gpuModule.emitError(
        "has no target attribute (such as #nvvm.target) to compile it for");
  SmallVector<Attribute> objects;
  for (Attribute attr : targets) {
    auto target = dyn_cast<gpu::TargetAttrInterface>(attr);
    if (!target)
      return gpuModule.emitError()
             << "target " << attr << " cannot compile a gpu.module";
    std::optional<SmallVector<char, 0>> serialized =
        target.serializeToObject(gpuModule, options);
    if (!serialized)
      return gpuModule.emitError() << "compiling for " << attr << " failed";
    Attribute object = target.createObject(gpuModule, *serialized, options);
    if (!object)
      return gpuModule.emitError()
             << "the object compiled for " << attr << " is not valid";
    objects.push_back(object);
  }
  return objects;
}

struct SerializeGPUModulesPass
    : public kda::impl::SerializeGPUModulesPassBase<SerializeGPUModulesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<gpu::CompilationTarget> target = parseFormat(format);
    if (!target) {
      module.emitError() << "kda-serialize-gpu-modules: unknown format '"
                         << format
                         << "' (expected isa, bin, fatbin or llvm)";
      return signalPassFailure();
    }
    SmallVector<gpu::GPUModuleOp> gpuModules(
        module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.empty())
      return;

    // Built before the modules compile side by side, which only read it.
    SymbolTable symbols(module);
    auto getSymbols = [&]() -> SymbolTable * { return &symbols; };
    gpu::TargetOptions options(toolkit, /*librariesToLink=*/{},
                               /*cmdOptions=*/"", /*elfSection=*/"", *target,
                               getSymbols);

    MLIRContext *ctx = &getContext();
    SmallVector<SmallVector<Attribute>> objects(gpuModules.size());
    ParallelDiagnosticHandler diagnostics(ctx);
    // The largest modules (by operation count) first: the threads take
    // modules in this order, and a large one taken last would run alone at
    // the end (the objects keep the modules' order).
    auto order = llvm::to_vector(llvm::seq<size_t>(0, gpuModules.size()));
    SmallVector<int64_t> sizes = llvm::map_to_vector(
        gpuModules, [](gpu::GPUModuleOp m) {
          int64_t n = 0;
          m.walk([&](Operation *) { ++n; });
          return n;
        });
    llvm::stable_sort(order,
                      [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
    LogicalResult compiled = failableParallelForEach(
        ctx, order, [&](size_t i) {
          diagnostics.setOrderIDForThread(i);
          FailureOr<SmallVector<Attribute>> result =
              serializeModule(gpuModules[i], options);
          diagnostics.eraseOrderIDForThread();
          if (failed(result))
            return failure();
          objects[i] = std::move(*result);
          return success();
        });
    if (failed(compiled))
      return signalPassFailure();

    for (auto [gpuModule, moduleObjects] : llvm::zip(gpuModules, objects)) {
      OpBuilder b(gpuModule);
      gpu::BinaryOp::create(b, gpuModule.getLoc(), gpuModule.getName(),
                            gpuModule.getOffloadingHandlerAttr(),
                            b.getArrayAttr(moduleObjects));
      gpuModule->erase();
    }
  }
};

} // namespace
