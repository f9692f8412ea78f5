//===- TileToGPU.cpp - tile kernels as GPU thread blocks ------------------===//
//
// Each bufferized tile kernel becomes a gpu.func in a gpu.module of its own
// (@<kernel>_module, so that later passes and the code generators can work
// on the kernels side by side), run as one thread block per program:
//  - tile.program_id / tile.num_programs -> gpu.block_id / gpu.grid_dim;
//  - workgroup allocations -> workgroup attributions (shared memory), after
//    each loop-carried buffer gets an allocation of its own outside the loop;
//  - every linalg op -> loops over its parallel iteration space, split
//    over the block's threads (a static per-thread schedule where the
//    extents allow, else the linearized space strided over the threads),
//    reduction dimensions running sequentially in each thread, with
//    gpu.barrier where another thread reads or writes its memory;
//  - tile.launch -> gpu.launch_func with the kernel's block size.
//
//===----------------------------------------------------------------------===//

#include "AsyncCopies.h"
#include "Barriers.h"
#include "LoopCarriedBuffers.h"
#include "MatmulEpilogues.h"
#include "MatmulPrologues.h"
#include "Scan.h"
#include "SharedMemory.h"
#include "TensorCore.h"
#include "ThreadSchedule.h"
#include "VectorElementwise.h"
#include "VectorStores.h"

#include "kda/Conversion/Passes.h"
#include "kda/Dialect/Tile/TileOps.h"
#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kda {
#define GEN_PASS_DEF_CONVERTTILETOGPUPASS
#include "Conversion/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;
using namespace mlir::kda::tile;

namespace {

/// Suffix of the name of the gpu.module that holds one kernel.
constexpr StringLiteral kGpuModuleSuffix = "_module";

/// Attribute of a gpu.func holding the dynamic shared memory (bytes) its
/// launches must provide.
constexpr StringLiteral kDynamicSharedAttr = "kda.dynamic_shared_bytes";

/// Attribute of a gpu.func that the NVVM lowering turns into PTX .maxnreg.
constexpr StringLiteral kMaxRegistersAttr = "nvvm.maxnreg";

/// Shared memory a block may use on sm_90 (227 KiB, with the opt-in that
/// the runtime sets for kernels above 48 KiB).
constexpr int64_t kMaxSharedBytes = 227 * 1024;

gpu::Dimension toGpuDimension(Axis axis) {
  switch (axis) {
  case Axis::x:
    return gpu::Dimension::x;
  case Axis::y:
    return gpu::Dimension::y;
  case Axis::z:
    return gpu::Dimension::z;
  }
  llvm_unreachable("unknown axis");
}

/// Number of leading parallel loops of `op`, after moving parallel loops
/// first where the op can be generalized. Returns the (possibly new) op.
std::pair<linalg::LinalgOp, unsigned> orderParallelFirst(RewriterBase &rewriter,
                                                         linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto countLeading = [](ArrayRef<utils::IteratorType> its) {
    unsigned n = 0;
    while (n < its.size() && its[n] == utils::IteratorType::parallel)
      ++n;
    return n;
  };
  unsigned leading = countLeading(iterators);
  unsigned total = llvm::count(iterators, utils::IteratorType::parallel);
  if (leading == total)
    return {op, leading};
  // Generalize and interchange so that all parallel loops come first.
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return {op, leading};
    generic = *generalized;
  }
  SmallVector<unsigned> perm;
  for (auto [i, it] : llvm::enumerate(iterators))
    if (it == utils::IteratorType::parallel)
      perm.push_back(i);
  for (auto [i, it] : llvm::enumerate(iterators))
    if (it != utils::IteratorType::parallel)
      perm.push_back(i);
  FailureOr<linalg::GenericOp> interchanged =
      linalg::interchangeGenericOp(rewriter, generic, perm);
  if (failed(interchanged))
    return {generic, leading};
  return {*interchanged, total};
}

/// Replaces `op` by loops over its iteration space in which the block's
/// threads take the parallel iterations in turn; does not add barriers.
LogicalResult distributeLoops(RewriterBase &rewriter, linalg::LinalgOp op,
                              int64_t numThreads) {
  Location loc = op.getLoc();
  // Tile stores move 16-byte pieces where the run-time addresses allow;
  // the copy stays as the fallback branch, distributed below.
  if (auto copy = dyn_cast<linalg::CopyOp>(op.getOperation()))
    kda::vectorizeTileStore(rewriter, copy, numThreads);
  // Matmuls on tf32-rounded operands run on tensor cores.
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation());
      matmul && kda::canUseTF32MmaSync(matmul, numThreads)) {
    kda::lowerMatmulToTF32MmaSync(rewriter, matmul, numThreads);
    return success();
  }
  // Matmuls of bf16 or f16 operands too (their products are exact in f32).
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation());
      matmul && kda::canUse16BitMmaSync(matmul, numThreads)) {
    kda::lowerMatmulTo16BitMmaSync(rewriter, matmul, numThreads);
    return success();
  }
  // Elementwise ops on aligned shared tiles take 4 elements per thread and
  // step, by vector loads and stores.
  if (kda::vectorizeElementwise(rewriter, op, numThreads))
    return success();
  // Scans run as one sequential loop per line and thread.
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      generic && kda::isMarkedScan(generic)) {
    kda::lowerScanToThreadLoops(rewriter, generic, numThreads);
    return success();
  }
  auto [ordered, numParallel] = orderParallelFirst(rewriter, op);
  rewriter.setInsertionPoint(ordered);
  Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  FailureOr<linalg::LinalgLoops> loops =
      linalg::linalgOpToLoops(rewriter, ordered);
  if (failed(loops))
    return ordered.emitOpError("could not be lowered to loops");
  rewriter.eraseOp(ordered);

  if (loops->empty() || numParallel == 0) {
    // Nothing to split: thread 0 runs the whole op.
    if (!loops->empty()) {
      Operation *outer = loops->front();
      rewriter.setInsertionPoint(outer);
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value first = arith::CmpIOp::create(rewriter, loc,
                                          arith::CmpIPredicate::eq, tid, zero);
      auto guard = scf::IfOp::create(rewriter, loc, first, false);
      rewriter.moveOpBefore(outer,
                            guard.getThenRegion().front().getTerminator());
    }
  } else {
    SmallVector<scf::ForOp> band;
    for (unsigned i = 0; i < numParallel; ++i)
      band.push_back(cast<scf::ForOp>((*loops)[i]));
    if (kda::scheduleBandStatically(rewriter, band, tid, numThreads))
      return success();
    scf::ForOp outer = band.front();
    if (band.size() > 1) {
      if (failed(coalesceLoops(rewriter, band)))
        return op.emitOpError("could not coalesce its parallel loops");
      outer = band.front();
    }
    // for i = lb to ub step s  ->  for i = lb + tid * s to ub step s * N.
    rewriter.setInsertionPoint(outer);
    Value step = outer.getStep();
    Value start = arith::AddIOp::create(
        rewriter, loc, outer.getLowerBound(),
        arith::MulIOp::create(rewriter, loc, tid, step));
    Value stride = arith::MulIOp::create(
        rewriter, loc, step,
        arith::ConstantIndexOp::create(rewriter, loc, numThreads));
    rewriter.modifyOpInPlace(outer, [&] {
      outer.setLowerBound(start);
      outer.setStep(stride);
    });
  }
  return success();
}

/// Distributes one linalg op over the threads of the block, with a barrier
/// before it (threads may still be reading or writing memory it touches)
/// and after it (other threads read its results) where asked.
LogicalResult distribute(RewriterBase &rewriter, linalg::LinalgOp op,
                         int64_t numThreads, bool barrierBefore,
                         bool barrierAfter) {
  Location loc = op.getLoc();
  Block *block = op->getBlock();
  // A matmul's fused epilogue goes away with it: the trailing barrier goes
  // after the epilogue's place.
  linalg::GenericOp epilogue = kda::fusedEpilogueOf(op);
  Operation *after = epilogue ? epilogue->getNextNode() : op->getNextNode();
  Operation *prev = op->getPrevNode();
  if (barrierBefore && !(prev && isa<gpu::BarrierOp>(prev))) {
    rewriter.setInsertionPoint(op);
    gpu::BarrierOp::create(rewriter, loc);
  }
  if (failed(distributeLoops(rewriter, op, numThreads)))
    return failure();
  if (!barrierAfter)
    return success();
  if (after)
    rewriter.setInsertionPoint(after);
  else
    rewriter.setInsertionPointToEnd(block);
  gpu::BarrierOp::create(rewriter, loc);
  return success();
}

/// Moves `kernel` into `gpuModule` as a gpu.func and maps it onto a block.
FailureOr<gpu::GPUFuncOp> convertKernel(func::FuncOp kernel,
                                        gpu::GPUModuleOp gpuModule,
                                        int64_t defaultThreads,
                                        int64_t maxRegisters) {
  MLIRContext *ctx = kernel.getContext();
  // The tuning's numbers are in range (its verifier); the pass's defaults
  // are checked here.
  TuningAttr tuning = TuningAttr::lookup(kernel);
  int64_t numThreads = tuning ? tuning.getThreads() : defaultThreads;
  if (numThreads < 1 || numThreads > TuningAttr::kMaxThreads)
    return kernel.emitError()
           << "num-threads (for kernels without a tile.tuning) must be in "
              "[1, "
           << TuningAttr::kMaxThreads << "], got " << numThreads;

  if (kernel.getFunctionType().getNumResults() != 0)
    return kernel.emitError()
           << "a tile kernel on the GPU returns nothing (it writes its "
              "results through memref arguments), this one returns "
           << kernel.getFunctionType().getResults();

  OpBuilder b(ctx);
  b.setInsertionPointToEnd(gpuModule.getBody());
  auto gpuFunc = gpu::GPUFuncOp::create(b, kernel.getLoc(), kernel.getName(),
                                        kernel.getFunctionType());
  gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  gpuFunc.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(numThreads), 1, 1}));
  // The pass option (for every kernel) wins over the kernel's own limit.
  if (maxRegisters == 0 && tuning)
    maxRegisters = tuning.getMaxRegisters();
  if (maxRegisters > 0)
    gpuFunc->setAttr(kMaxRegistersAttr,
                     b.getI32IntegerAttr(static_cast<int32_t>(maxRegisters)));
  // The tuning stays on the kernel (gpu-hoist-uniform-addresses reads it on
  // the llvm.func).
  if (tuning)
    tuning.attachTo(gpuFunc);

  // Move the body; the gpu.func entry block already has the arguments.
  Block &newEntry = gpuFunc.getBody().front();
  Block &oldEntry = kernel.getBody().front();
  IRRewriter rewriter(ctx);
  for (auto [oldArg, newArg] :
       llvm::zip(oldEntry.getArguments(),
                 newEntry.getArguments().take_front(oldEntry.getNumArguments())))
    oldArg.replaceAllUsesWith(newArg);
  newEntry.getOperations().splice(newEntry.end(), oldEntry.getOperations());

  // Program ids, returns and shared-memory allocations.
  SmallVector<memref::AllocOp> sharedAllocs;
  SmallVector<Operation *> toRewrite;
  gpuFunc.walk([&](Operation *op) {
    if (isa<ProgramIdOp, NumProgramsOp, func::ReturnOp, memref::AllocOp>(op))
      toRewrite.push_back(op);
  });
  for (Operation *op : toRewrite) {
    rewriter.setInsertionPoint(op);
    if (auto pid = dyn_cast<ProgramIdOp>(op)) {
      rewriter.replaceOpWithNewOp<gpu::BlockIdOp>(op,
                                                  toGpuDimension(pid.getAxis()));
    } else if (auto num = dyn_cast<NumProgramsOp>(op)) {
      rewriter.replaceOpWithNewOp<gpu::GridDimOp>(op,
                                                  toGpuDimension(num.getAxis()));
    } else if (isa<func::ReturnOp>(op)) {
      rewriter.replaceOpWithNewOp<gpu::ReturnOp>(op);
    } else {
      auto alloc = cast<memref::AllocOp>(op);
      MemRefType type = alloc.getType();
      auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
      if (!space || space.getValue() != gpu::AddressSpace::Workgroup ||
          !type.hasStaticShape())
        return alloc.emitOpError(
            "tile temporaries on the GPU must be statically shaped "
            "workgroup buffers (bufferize with memory-space=workgroup)");
      Type element = type.getElementType();
      if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
        return alloc.emitOpError()
               << "tile temporaries on the GPU must have integer or float "
                  "elements of whole bytes, got "
               << element
               << (element.isIndex() ? " (convert index tiles with "
                                       "arith.index_cast first)"
                                     : "");
      sharedAllocs.push_back(alloc);
    }
  }
  kda::fuseMatmulEpilogues(gpuFunc, numThreads);
  kda::fuseMatmulPrologues(gpuFunc, numThreads);
  kda::separateLoopCarriedBuffers(gpuFunc, sharedAllocs);
  FailureOr<int64_t> dynamicShared = kda::packSharedMemory(
      gpuFunc, sharedAllocs, numThreads,
      /*explicitBarriers=*/kernel->hasAttr(kda::tile::kExplicitBarriersAttrName));
  if (failed(dynamicShared))
    return failure();
  if (*dynamicShared > kMaxSharedBytes)
    return kernel.emitError()
           << "needs " << *dynamicShared
           << " bytes of shared memory for its tiles, more than the "
           << kMaxSharedBytes
           << " a block may have on sm_90; use smaller tiles";
  if (*dynamicShared)
    gpuFunc->setAttr(kDynamicSharedAttr,
                     b.getI64IntegerAttr(*dynamicShared));

  kda::lowerTileLoadsToAsyncCopies(gpuFunc, numThreads);
  kda::foldZeroAccumulatorFills(gpuFunc, numThreads);

  // Distribute linalg ops (collected first: distribution rewrites them),
  // with barriers only where planned.
  SmallVector<linalg::LinalgOp> linalgOps;
  gpuFunc.walk([&](linalg::LinalgOp op) {
    // Chained matmuls and fused epilogues are lowered with their chain.
    if (kda::loweredWith(op) == op.getOperation())
      linalgOps.push_back(op);
  });
  SmallVector<kda::BarrierPlan> plan = kda::planBarriers(linalgOps);
  for (auto [op, barriers] : llvm::zip(linalgOps, plan))
    if (failed(distribute(rewriter, op, numThreads, barriers.before,
                          barriers.after)))
      return failure();
  // Triangular inverses: a column per thread, between the barriers that
  // the ops around them asked for (they are effectful non-linalg ops, so
  // no run of linalg ops spans them).
  auto threadId = [](OpBuilder &b, Location loc) -> Value {
    return gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  };
  if (failed(lowerUnitLowerInverses(rewriter, gpuFunc, numThreads, threadId,
                                    "convert-tile-to-gpu")))
    return failure();
  kda::removeRedundantBarriers(gpuFunc);
  return gpuFunc;
}

struct ConvertTileToGPUPass
    : public kda::impl::ConvertTileToGPUPassBase<ConvertTileToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(TileDialect::getKernelAttrName()))
        kernels.push_back(func);
    if (kernels.empty())
      return;
    if (maxRegisters < 0 || maxRegisters > TuningAttr::kMaxRegisters) {
      module.emitError() << "convert-tile-to-gpu: max-registers must be in "
                            "[0, 255] (0: ptxas decides), got "
                         << static_cast<int64_t>(maxRegisters);
      return signalPassFailure();
    }

    OpBuilder b(ctx);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());

    llvm::StringMap<gpu::GPUFuncOp> converted;
    for (func::FuncOp kernel : kernels) {
      std::string moduleName = (kernel.getName() + kGpuModuleSuffix).str();
      if (SymbolTable::lookupSymbolIn(module, moduleName)) {
        kernel.emitError() << "cannot name the gpu.module of this kernel '"
                           << moduleName << "': the name is taken";
        return signalPassFailure();
      }
      b.setInsertionPointToEnd(module.getBody());
      auto gpuModule =
          gpu::GPUModuleOp::create(b, kernel.getLoc(), moduleName);
      FailureOr<gpu::GPUFuncOp> gpuFunc =
          convertKernel(kernel, gpuModule, numThreads, maxRegisters);
      if (failed(gpuFunc))
        return signalPassFailure();
      converted[kernel.getName()] = *gpuFunc;
      kernel.erase();
    }

    // Launches -> gpu.launch_func.
    SmallVector<LaunchOp> launches;
    module.walk([&](LaunchOp launch) { launches.push_back(launch); });
    for (LaunchOp launch : launches) {
      gpu::GPUFuncOp gpuFunc = converted.lookup(launch.getKernel());
      if (!gpuFunc) {
        launch.emitOpError() << "launches '" << launch.getKernel()
                             << "', which is not a tile kernel";
        return signalPassFailure();
      }
      OpBuilder lb(launch);
      Location loc = launch.getLoc();
      int32_t threads = gpuFunc.getKnownBlockSizeAttr()[0];
      Value bx = arith::ConstantIndexOp::create(lb, loc, threads);
      Value one = arith::ConstantIndexOp::create(lb, loc, 1);
      Value dynamicShared;
      if (auto bytes = gpuFunc->getAttrOfType<IntegerAttr>(kDynamicSharedAttr))
        dynamicShared = arith::ConstantIntOp::create(lb, loc, lb.getI32Type(),
                                                     bytes.getInt());
      gpu::LaunchFuncOp::create(
          lb, loc, gpuFunc,
          gpu::KernelDim3{launch.getGridX(), launch.getGridY(),
                          launch.getGridZ()},
          gpu::KernelDim3{bx, one, one}, dynamicShared, launch.getArgs());
      launch.erase();
    }
  }
};

} // namespace
