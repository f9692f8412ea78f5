//===- FuseTileLaunches.cpp - neighbouring launches as one kernel ---------===//
//
// kda-fuse-tile-launches: tile.launch ops that follow one another, run the
// same grid and declare the same program partition (tile.partition) become
// one launch of one kernel whose program runs the kernels' bodies in launch
// order. Program p of a later launch then reads what program p of an
// earlier one wrote without a kernel boundary in between: one launch
// instead of several, and the intermediates a program wrote are read back
// by the same thread block while they are still in the caches.
//
//===----------------------------------------------------------------------===//

#include "kda/Transforms/Passes.h"
#include "kda/Dialect/Tile/TileOps.h"
#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::kda {
#define GEN_PASS_DEF_FUSETILELAUNCHESPASS
#include "Transforms/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;
using namespace mlir::kda;

namespace {

/// The partition `launch` declares, or null.
StringAttr partitionOf(tile::LaunchOp launch) {
  return launch->getAttrOfType<StringAttr>(
      tile::TileDialect::getPartitionAttrName());
}

/// True if `op` neither reads nor writes memory (it may allocate: the
/// buffers of the next stage's results are allocated between launches).
bool touchesNoMemory(Operation *op) {
  if (isMemoryEffectFree(op))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects || op->getNumRegions() != 0)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::all_of(instances, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Allocate>(e.getEffect());
  });
}

/// The kernel `launch` runs, when it can take part in a fusion: a tile
/// kernel of one block whose return has no operands and whose tiles have
/// no layouts; else null.
func::FuncOp fusableKernel(tile::LaunchOp launch, SymbolTable &symbols) {
  auto kernel = symbols.lookup<func::FuncOp>(launch.getKernel());
  if (!kernel || !kernel->hasAttr(tile::TileDialect::getKernelAttrName()) ||
      !llvm::hasSingleElement(kernel.getBody()) ||
      tile::hasLaidOutTiles(kernel))
    return {};
  auto ret = dyn_cast<func::ReturnOp>(kernel.getBody().front().back());
  if (!ret || ret.getNumOperands() != 0)
    return {};
  return kernel;
}

/// True if `next` may join the run that ends with `last`: the same
/// partition and grid, and nothing but memory-free ops between them.
bool mayFollow(tile::LaunchOp last, tile::LaunchOp next) {
  if (partitionOf(next) != partitionOf(last) ||
      next.getGridX() != last.getGridX() ||
      next.getGridY() != last.getGridY() ||
      next.getGridZ() != last.getGridZ() ||
      next->getBlock() != last->getBlock())
    return false;
  for (Operation *op = last->getNextNode(); op != next.getOperation();
       op = op->getNextNode())
    if (!touchesNoMemory(op))
      return false;
  return true;
}

/// The tuning of a kernel made of the kernels `tunings` describe (null for
/// a kernel without one): the most threads any of them asks for; no
/// register cap if one of them has none, else the highest; the smallest
/// live-tile bound that any sets; speculation and address hoisting only
/// if all of them ask for it; the register mapping if all of them ask for
/// it, else the shared-memory mapping, which lowers any tile code for any
/// thread count; one stage (no load pipelining across the bodies).
/// `block_k` and `block_v` are left out: the bodies may use different
/// widths; so is `transpose_state`, which only the chunk recurrence (never
/// fused) records.
tile::TuningAttr fuseTunings(MLIRContext *ctx,
                             ArrayRef<tile::TuningAttr> tunings) {
  int64_t threads = 0, maxRegisters = 0, maxLiveBytes = 0;
  bool capped = true, speculate = true, hoist = true, registers = true;
  for (tile::TuningAttr tuning : tunings) {
    if (!tuning)
      return {};
    threads = std::max(threads, tuning.getThreads());
    capped &= tuning.getMaxRegisters() > 0;
    maxRegisters = std::max(maxRegisters, tuning.getMaxRegisters());
    if (int64_t live = tuning.getMaxLiveBytes(); live > 0)
      maxLiveBytes = maxLiveBytes > 0 ? std::min(maxLiveBytes, live) : live;
    speculate &= tuning.getSpeculateLoads();
    hoist &= tuning.getHoistAddresses();
    registers &= tuning.getMapping() == tile::KernelMapping::registers;
  }
  return tile::TuningAttr::get(ctx, threads, capped ? maxRegisters : 0,
                               maxLiveBytes, /*block_k=*/0, /*block_v=*/0,
                               speculate, hoist,
                               registers ? tile::KernelMapping::registers
                                         : tile::KernelMapping::shared_memory,
                               /*stages=*/1, /*transpose_state=*/false);
}

/// The name of the fused kernel: the first kernel's name, then each later
/// kernel's name without the prefix it shares with the first.
std::string fusedName(MutableArrayRef<func::FuncOp> kernels) {
  StringRef first = kernels.front().getSymName();
  std::string name = first.str();
  for (func::FuncOp kernel : kernels.drop_front()) {
    StringRef other = kernel.getSymName();
    size_t common = 0;
    while (common < first.size() && common < other.size() &&
           first[common] == other[common])
      ++common;
    // Cut at the last '_' of the shared prefix, so that words stay whole.
    size_t cut = first.substr(0, common).rfind('_');
    name += "_" + other.substr(cut == StringRef::npos ? 0 : cut + 1).str();
  }
  return name;
}

/// Replaces the launches `run` (of `kernels`) with one launch of a new
/// kernel that runs the kernels' bodies in order; kernels no other op uses
/// are erased.
void fuseRun(MutableArrayRef<tile::LaunchOp> run,
             MutableArrayRef<func::FuncOp> kernels,
             SymbolTable &symbols) {
  MLIRContext *ctx = run.front().getContext();
  // The fused kernel's arguments: each buffer once, in order of first use.
  SmallVector<Value> buffers;
  llvm::DenseMap<Value, unsigned> position;
  for (tile::LaunchOp launch : run)
    for (Value arg : launch.getArgs())
      if (position.try_emplace(arg, buffers.size()).second)
        buffers.push_back(arg);

  Location loc = FusedLoc::get(
      ctx, llvm::map_to_vector(kernels, [](func::FuncOp k) {
        return Location(k.getLoc());
      }));
  OpBuilder b(ctx);
  SmallVector<Type> argTypes(ValueRange(buffers).getTypes());
  auto fused = func::FuncOp::create(b, loc, fusedName(kernels),
                                    b.getFunctionType(argTypes, {}));
  fused->setAttr(tile::TileDialect::getKernelAttrName(), b.getUnitAttr());
  if (tile::TuningAttr tuning = fuseTunings(
          ctx, llvm::map_to_vector(kernels, [](func::FuncOp kernel) {
            return tile::TuningAttr::lookup(kernel);
          })))
    tuning.attachTo(fused);
  // Before the first kernel, under a unique name if that one is taken.
  symbols.insert(fused, Block::iterator(kernels.front()));
  Block *entry = fused.addEntryBlock();

  OpBuilder body = OpBuilder::atBlockEnd(entry);
  for (auto [launch, kernel] : llvm::zip_equal(run, kernels)) {
    IRMapping mapping;
    for (auto [param, arg] :
         llvm::zip_equal(kernel.getArguments(), launch.getArgs()))
      mapping.map(param, entry->getArgument(position.lookup(arg)));
    for (Operation &op : kernel.getBody().front().without_terminator())
      body.clone(op, mapping);
  }
  func::ReturnOp::create(body, loc);

  tile::LaunchOp last = run.back();
  OpBuilder host(last);
  auto launch = tile::LaunchOp::create(host, last.getLoc(), fused.getSymName(),
                                       last.getGridX(), last.getGridY(),
                                       last.getGridZ(), buffers);
  launch->setAttr(tile::TileDialect::getPartitionAttrName(),
                  partitionOf(last));
  for (tile::LaunchOp old : run)
    old.erase();
  ModuleOp module = fused->getParentOfType<ModuleOp>();
  for (func::FuncOp kernel : kernels)
    if (SymbolTable::symbolKnownUseEmpty(kernel, module))
      kernel.erase();
}

struct FuseTileLaunchesPass
    : kda::impl::FuseTileLaunchesPassBase<FuseTileLaunchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<tile::LaunchOp> launches;
    module.walk([&](tile::LaunchOp launch) { launches.push_back(launch); });

    // Maximal runs of neighbouring fusable launches, in program order.
    SmallVector<SmallVector<tile::LaunchOp>> runs;
    SmallVector<SmallVector<func::FuncOp>> runKernels;
    for (tile::LaunchOp launch : launches) {
      func::FuncOp kernel =
          partitionOf(launch) ? fusableKernel(launch, symbols) : nullptr;
      if (!kernel) {
        runs.emplace_back();
        runKernels.emplace_back();
        continue;
      }
      if (runs.empty() || runs.back().empty() ||
          !mayFollow(runs.back().back(), launch)) {
        runs.emplace_back();
        runKernels.emplace_back();
      }
      runs.back().push_back(launch);
      runKernels.back().push_back(kernel);
    }
    for (auto [run, kernels] : llvm::zip_equal(runs, runKernels))
      if (run.size() > 1)
        fuseRun(run, kernels, symbols);
  }
};

} // namespace
