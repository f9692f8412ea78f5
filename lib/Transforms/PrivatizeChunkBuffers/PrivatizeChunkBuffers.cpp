//===- PrivatizeChunkBuffers.cpp - per-program homes for chunk buffers ----===//
//
// kda-privatize-chunk-buffers: a workspace that only one chunk-partitioned
// launch touches (after kda-fuse-tile-launches, the intermediates that the
// per-chunk stages of one fused kernel pass to each other) holds, for each
// program, only the rows of that program's chunk. It moves into a buffer of
// BT rows that the program allocates for itself (shared memory on the GPU):
// row i of the chunk becomes row i - start, start being the chunk's first
// row as the stage body marked it (tile.chunk_start), and the workspace is
// gone.
//
//===----------------------------------------------------------------------===//

#include "kda/Transforms/Passes.h"
#include "kda/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>

namespace mlir::kda {
#define GEN_PASS_DEF_PRIVATIZECHUNKBUFFERSPASS
#include "Transforms/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;
using namespace mlir::kda;

namespace {

/// The chunk size BT of a `chunks<BT>` partition, or nullopt.
std::optional<int64_t> chunkRowsOf(tile::LaunchOp launch) {
  auto partition = launch->getAttrOfType<StringAttr>(
      tile::TileDialect::getPartitionAttrName());
  if (!partition)
    return std::nullopt;
  StringRef text = partition.getValue();
  int64_t rows = 0;
  if (!text.consume_front("chunks") || text.getAsInteger(10, rows) ||
      rows <= 0)
    return std::nullopt;
  return rows;
}

/// The tile.chunk_start that begins the stage body holding `op`: the
/// nearest one before `op`'s ancestor in the kernel's entry block; null if
/// there is none.
tile::ChunkStartOp startBefore(Operation *op, Block &entry) {
  Operation *top = entry.findAncestorOpInBlock(*op);
  for (Operation *prev = top ? top->getPrevNode() : nullptr; prev;
       prev = prev->getPrevNode())
    if (auto start = dyn_cast<tile::ChunkStartOp>(prev))
      return start;
  return {};
}

/// One access of the buffer: its op and the chunk start of its stage.
struct Access {
  Operation *op;
  Value start;
};

/// A size of the buffer that the kernel reads (`memref.dim`), and where the
/// same size comes from without it: a constant, or dimension `dim` of
/// kernel argument `arg`.
struct SizeRead {
  memref::DimOp op;
  std::optional<int64_t> constant;
  unsigned arg = 0;
  int64_t dim = 0;
};

/// Where the kernel can read size `d` of the buffer `alloc` (a launch
/// argument of `launch`) without it: the static size, or the host's
/// `memref.dim %x, d'` that sized the allocation, `%x` being a launch
/// argument that is not an allocation (it stays).
std::optional<SizeRead> sizeSource(memref::AllocOp alloc, int64_t d,
                                   tile::LaunchOp launch) {
  MemRefType type = alloc.getType();
  if (d < 0 || d >= type.getRank())
    return std::nullopt;
  SizeRead read{};
  if (!type.isDynamicDim(d)) {
    read.constant = type.getDimSize(d);
    return read;
  }
  auto hostDim = alloc.getDynamicSizes()[type.getDynamicDimIndex(d)]
                     .getDefiningOp<memref::DimOp>();
  std::optional<int64_t> index =
      hostDim ? hostDim.getConstantIndex() : std::nullopt;
  if (!index || hostDim.getSource().getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  for (auto [j, arg] : llvm::enumerate(launch.getArgs()))
    if (arg == hostDim.getSource()) {
      read.arg = j;
      read.dim = *index;
      return read;
    }
  return std::nullopt;
}

/// The accesses of kernel argument `arg` (the launch's buffer `alloc`)
/// and the sizes the kernel reads of it, when every use can move to a
/// per-program buffer (see the pass description); nullopt otherwise.
std::optional<std::pair<SmallVector<Access>, SmallVector<SizeRead>>>
collectUses(BlockArgument arg, memref::AllocOp alloc, tile::LaunchOp launch) {
  Block &entry = *arg.getOwner();
  SmallVector<Access> accesses;
  SmallVector<SizeRead> sizes;
  for (OpOperand &use : arg.getUses()) {
    Operation *user = use.getOwner();
    if (auto dim = dyn_cast<memref::DimOp>(user)) {
      std::optional<int64_t> d = dim.getConstantIndex();
      std::optional<SizeRead> read =
          d ? sizeSource(alloc, *d, launch) : std::nullopt;
      if (!read)
        return std::nullopt;
      read->op = dim;
      sizes.push_back(*read);
      continue;
    }
    ArrayRef<int64_t> dims;
    ValueRange bounds;
    if (auto load = dyn_cast<tile::LoadOp>(user);
        load && use.get() == load.getSource()) {
      dims = load.getDims();
      bounds = load.getBounds();
    } else if (auto store = dyn_cast<tile::StoreOp>(user);
               store && use.get() == store.getDest()) {
      dims = store.getDims();
      bounds = store.getBounds();
    } else {
      return std::nullopt;
    }
    // Only the rows and the feature dimension may be tiled; the rows only
    // with an explicit bound (the default, T, does not survive the move).
    if (llvm::is_contained(dims, 0) || llvm::is_contained(dims, 2))
      return std::nullopt;
    if (llvm::is_contained(dims, 1) && bounds.empty())
      return std::nullopt;
    tile::ChunkStartOp start = startBefore(user, entry);
    if (!start)
      return std::nullopt;
    accesses.push_back({user, start.getResult()});
  }
  return std::make_pair(accesses, sizes);
}

/// Replaces the size read `read` of the buffer with its source.
void replaceSize(SizeRead read, Block &entry) {
  OpBuilder b(read.op);
  Location loc = read.op.getLoc();
  Value size =
      read.constant
          ? arith::ConstantIndexOp::create(b, loc, *read.constant).getResult()
          : memref::DimOp::create(b, loc, entry.getArgument(read.arg),
                                  read.dim)
                .getResult();
  read.op.replaceAllUsesWith(size);
  read.op.erase();
}

/// Points `access` at `local`: batch and head indices 0, the row index and
/// the row bound less the chunk start.
void redirect(const Access &access, Value local) {
  Operation *op = access.op;
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value start = access.start;
  auto shift = [&](Value v) -> Value {
    return arith::SubIOp::create(b, loc, v, start);
  };
  auto rewrite = [&](auto memOp) {
    SmallVector<Value> indices(memOp.getIndices());
    indices[0] = zero;
    indices[1] = shift(indices[1]);
    indices[2] = zero;
    SmallVector<Value> bounds(memOp.getBounds());
    for (auto [j, dim] : llvm::enumerate(memOp.getDims()))
      if (dim == 1)
        bounds[j] = shift(bounds[j]);
    memOp.getIndicesMutable().assign(indices);
    memOp.getBoundsMutable().assign(bounds);
  };
  if (auto load = dyn_cast<tile::LoadOp>(op)) {
    rewrite(load);
    load.getSourceMutable().assign(local);
  } else {
    auto store = cast<tile::StoreOp>(op);
    rewrite(store);
    store.getDestMutable().assign(local);
  }
}

struct PrivatizeChunkBuffersPass
    : kda::impl::PrivatizeChunkBuffersPassBase<PrivatizeChunkBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Attribute space;
    if (memorySpace == "workgroup") {
      space = gpu::AddressSpaceAttr::get(
          &getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
    } else if (memorySpace != "default") {
      module.emitError() << "kda-privatize-chunk-buffers: unknown "
                            "memory-space '"
                         << memorySpace << "' (expected 'workgroup' or "
                                           "'default')";
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    SmallVector<tile::LaunchOp> launches;
    module.walk([&](tile::LaunchOp launch) { launches.push_back(launch); });
    for (tile::LaunchOp launch : launches)
      privatize(launch, symbols, space);
  }

  /// Moves every buffer of `launch` that qualifies into its kernel.
  void privatize(tile::LaunchOp launch, SymbolTable &symbols,
                 Attribute space) {
    std::optional<int64_t> rows = chunkRowsOf(launch);
    auto kernel = symbols.lookup<func::FuncOp>(launch.getKernel());
    if (!rows || !kernel || kernel.isExternal())
      return;
    // A kernel that another launch also runs keeps its arguments.
    auto uses = SymbolTable::getSymbolUses(kernel, symbols.getOp());
    if (!uses || std::distance(uses->begin(), uses->end()) != 1)
      return;
    Block &entry = kernel.getBody().front();
    llvm::BitVector erased(launch.getArgs().size());
    for (auto [i, buffer] : llvm::enumerate(launch.getArgs())) {
      auto alloc = buffer.getDefiningOp<memref::AllocOp>();
      auto type = dyn_cast<MemRefType>(buffer.getType());
      if (!alloc || !buffer.hasOneUse() || !type || type.getRank() != 4 ||
          type.isDynamicDim(3))
        continue;
      BlockArgument arg = entry.getArgument(i);
      auto uses = collectUses(arg, alloc, launch);
      if (!uses)
        continue;
      OpBuilder b = OpBuilder::atBlockBegin(&entry);
      auto localType =
          MemRefType::get({1, *rows, 1, type.getDimSize(3)},
                          type.getElementType(), MemRefLayoutAttrInterface(),
                          space);
      Value local = memref::AllocOp::create(b, alloc.getLoc(), localType);
      for (const Access &access : uses->first)
        redirect(access, local);
      for (SizeRead read : uses->second)
        replaceSize(read, entry);
      erased.set(i);
    }
    if (erased.none())
      return;
    // Drop the moved buffers from the launch, the kernel and the host.
    SmallVector<Value> kept;
    SmallVector<Operation *> deadAllocs;
    for (auto [i, buffer] : llvm::enumerate(launch.getArgs())) {
      if (erased.test(i))
        deadAllocs.push_back(buffer.getDefiningOp());
      else
        kept.push_back(buffer);
    }
    launch.getArgsMutable().assign(kept);
    if (failed(kernel.eraseArguments(erased)))
      return signalPassFailure();
    for (Operation *alloc : deadAllocs)
      if (alloc->use_empty())
        alloc->erase();
  }
};

} // namespace
