//===- SIMTMemory.cpp - tile.load / tile.store of register tiles ----------===//
//
// Each thread reads the elements it holds straight from global memory into
// its registers, and writes them back from there: no shared memory. An
// element outside the load's box takes the padding value; a store writes
// only the elements inside its box, each from one thread (the owner of its
// copies). Where a thread holds runs of consecutive elements along the
// memref's innermost (unit-stride) dimension, each run is one vector
// access of up to 16 bytes when, at run time, the run lies inside the box
// and its address is aligned to its size; otherwise element by element.
// A load of 8 KiB or more whose layout gives every warp (or several of
// them) the same elements, such as a dot's B operand, reads the tile once,
// in a coalesced layout over all warps, and hands it out through shared
// memory. (Measured on an H200: the forward's 8-16 KiB B operands gain,
// the 2 KiB ones of the register chain lose; docs/performance.md.) When
// dots are the only readers of such a tile (as A or B, itself or through
// a tile.trans), it stays in a shared buffer (rows padded,
// keepsInSharedMemory), copied there by cp.async without passing through
// registers, and the dots read their fragments from it with ldmatrix
// (SIMTDot.cpp); the wait for the copies and the barrier that publishes
// them go right before the first reader.
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"
#include "../Utils/OpaqueValue.h"

#include "kda/Dialect/Tile/TileOps.h"
#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::kda;
using namespace mlir::kda::simt;

namespace {

/// The memref indices of a tile element and whether it lies in the box.
struct ElementAccess {
  SmallVector<Value> indices;
  Value inBounds;
};

/// Addressing shared by loads and stores: tile dimension j runs along
/// memref dimension dims[j] from indices[dims[j]], inside bounds[j].
class TileAddressing {
public:
  TileAddressing(OpBuilder &b, Location loc, Value memref, ValueRange indices,
                 ValueRange bounds, ArrayRef<int64_t> dims,
                 DistLayoutAttr layout, ThreadPosition thread)
      : b(b), loc(loc), memref(memref), indices(indices), dims(dims),
        layout(layout) {
    for (auto [j, dim] : llvm::enumerate(dims))
      this->bounds.push_back(
          bounds.empty()
              ? memref::DimOp::create(b, loc, memref, dim).getResult()
              : bounds[j]);
    SmallVector<Value> offsets = getThreadOffsets(b, loc, layout, thread);
    for (auto [j, dim] : llvm::enumerate(dims))
      threadBase.push_back(
          arith::AddIOp::create(b, loc, indices[dim], offsets[j]));
  }

  ElementAccess access(int64_t reg) {
    SmallVector<int64_t> offsets = layout.getRegisterOffsets(reg);
    ElementAccess result{SmallVector<Value>(indices.begin(), indices.end()),
                         Value()};
    for (auto [j, dim] : llvm::enumerate(dims)) {
      Value index = threadBase[j];
      if (offsets[j])
        index = arith::AddIOp::create(
            b, loc, index, arith::ConstantIndexOp::create(b, loc, offsets[j]));
      result.indices[dim] = index;
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           index, bounds[j]);
      result.inBounds =
          result.inBounds
              ? arith::AndIOp::create(b, loc, result.inBounds, inside)
              : inside;
    }
    return result;
  }

  /// i1: the box holds the whole tile (every element of every thread is
  /// inside it), so no access needs its own check.
  Value coversTile() {
    SmallVector<int64_t> shape = layout.getTileShape();
    Value all;
    for (auto [j, dim] : llvm::enumerate(dims)) {
      Value end = arith::AddIOp::create(
          b, loc, indices[dim],
          arith::ConstantIndexOp::create(b, loc, shape[j]));
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                           end, bounds[j]);
      all =
          all ? arith::AndIOp::create(b, loc, all, inside).getResult() : inside;
    }
    return all;
  }

  /// True once preparePointers has prepared the thread's pointer.
  bool hasPointers() const { return static_cast<bool>(threadPointer); }

  /// Prepares pointerTo (at the builder's insertion point, which must
  /// dominate every access): the address of the thread's first element,
  /// passed through an inline `mov` that LLVM cannot see through. Without
  /// it, LLVM's reassociation hoists one loop-invariant address per
  /// register out of a loop (a register pair each: the state scan's h
  /// stores alone took 32). A dynamic stride the tile runs along (a head
  /// count known only at run time) goes through such a `mov` too, tied to
  /// the thread's address, so that the registers' offsets (multiples of it)
  /// are recomputed where they are used rather than hoisted.
  void preparePointers() {
    auto type = cast<MemRefType>(memref.getType());
    int64_t staticOffset;
    if (failed(type.getStridesAndOffset(strides, staticOffset)) ||
        type.getElementTypeBitWidth() % 8)
      return;
    bytes = type.getElementTypeBitWidth() / 8;
    auto cst = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    SmallVector<Value> at(indices.begin(), indices.end());
    for (auto [j, dim] : llvm::enumerate(dims))
      at[dim] = threadBase[j];
    Value linear = metadata.getOffset();
    for (auto [i, index] : llvm::enumerate(at))
      linear = arith::AddIOp::create(
          b, loc, linear,
          arith::MulIOp::create(b, loc, index, metadata.getStrides()[i]));
    Value address = arith::AddIOp::create(
        b, loc, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref),
        arith::MulIOp::create(b, loc, linear, cst(bytes)));
    Type i64 = b.getI64Type();
    Value address64 = arith::IndexCastUIOp::create(b, loc, i64, address);
    strideBytes.assign(dims.size(), Value());
    for (auto [j, dim] : llvm::enumerate(dims)) {
      if (!ShapedType::isDynamic(strides[dim]))
        continue;
      Value stride = arith::MulIOp::create(b, loc, metadata.getStrides()[dim],
                                           cst(bytes));
      strideBytes[j] = createOpaqueI64(
          b, loc, arith::IndexCastUIOp::create(b, loc, i64, stride), address64);
    }
    threadPointer = LLVM::IntToPtrOp::create(
        b, loc,
        LLVM::LLVMPointerType::get(b.getContext(),
                                   getPointerAddressSpace(type)),
        createOpaqueI64(b, loc, address64));
  }

  /// The NVPTX address space of pointers into `type`'s memory: shared (3)
  /// for a workgroup buffer (a per-program buffer of a fused per-chunk
  /// kernel), local (5) for a private one, else global (1). The address
  /// the pointer is built from is the memref's own, in that space.
  static unsigned getPointerAddressSpace(MemRefType type) {
    auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
    if (!space)
      return 1;
    switch (space.getValue()) {
    case gpu::AddressSpace::Workgroup:
      return 3;
    case gpu::AddressSpace::Private:
      return 5;
    case gpu::AddressSpace::Global:
      return 1;
    }
    return 1;
  }

  /// A pointer to the element of register `reg` (the prepared
  /// thread pointer plus the register's offset: a constant, plus multiples
  /// of the opaque dynamic strides), or null when preparePointers could
  /// not prepare one.
  Value pointerTo(OpBuilder &at, Location l, int64_t reg) {
    if (!threadPointer)
      return Value();
    SmallVector<int64_t> offsets = layout.getRegisterOffsets(reg);
    int64_t byteOffset = 0;
    Value dynamicOffset;
    for (auto [j, dim] : llvm::enumerate(dims)) {
      if (!offsets[j])
        continue;
      if (!strideBytes[j]) {
        byteOffset += offsets[j] * strides[dim] * bytes;
        continue;
      }
      Value term = LLVM::MulOp::create(
          at, l, strideBytes[j],
          LLVM::ConstantOp::create(at, l, at.getI64Type(), offsets[j]));
      dynamicOffset = dynamicOffset
                          ? LLVM::AddOp::create(at, l, dynamicOffset, term)
                                .getResult()
                          : term;
    }
    Value pointer = threadPointer;
    if (dynamicOffset)
      pointer = LLVM::GEPOp::create(at, l, pointer.getType(), at.getI8Type(),
                                    pointer, ArrayRef<LLVM::GEPArg>{dynamicOffset},
                                    LLVM::GEPNoWrapFlags::inbounds);
    if (!byteOffset)
      return pointer;
    return LLVM::GEPOp::create(
        at, l, pointer.getType(), at.getI8Type(), pointer,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(byteOffset)},
        LLVM::GEPNoWrapFlags::inbounds);
  }

private:
  OpBuilder &b;
  Location loc;
  Value memref;
  Value threadPointer;
  SmallVector<int64_t> strides;
  /// Per tile dimension: its stride in bytes through an opaque `mov` when
  /// the stride is dynamic, else null.
  SmallVector<Value> strideBytes;
  int64_t bytes = 0;
  ValueRange indices;
  ArrayRef<int64_t> dims;
  DistLayoutAttr layout;
  SmallVector<Value> bounds;
  SmallVector<Value> threadBase;
};

/// Elements per vector access when the registers of `layout` hold runs of
/// consecutive elements along the innermost dimension of `memref`, which
/// the tile's last dimension runs along with unit stride; 1 otherwise.
int64_t getRunLength(DistLayoutAttr layout, MemRefType memref,
                     ArrayRef<int64_t> dims) {
  int64_t last = layout.getRank() - 1;
  if (dims.back() != memref.getRank() - 1)
    return 1;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1)
    return 1;
  for (int64_t d = 0; d < last; ++d)
    if (layout.getElems()[d] != 1)
      return 1;
  int64_t bytes = memref.getElementTypeBitWidth() / 8;
  if (bytes < 1 || memref.getElementTypeBitWidth() % 8)
    return 1;
  int64_t run = std::min<int64_t>(layout.getElems()[last], 16 / bytes);
  return run >= 2 ? run : 1;
}

/// i1: runs of `run` elements starting at the tile's origin and at
/// multiples of `run` columns from it have addresses aligned to their size
/// (the base address, the origin's column and every outer stride are
/// multiples of the run).
Value buildRunsAligned(OpBuilder &b, Location loc, Value memref,
                       ValueRange indices, int64_t run) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto type = cast<MemRefType>(memref.getType());
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  auto isMultiple = [&](Value v, int64_t of) -> Value {
    Value rem = arith::RemUIOp::create(b, loc, v, cst(of));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem, cst(0));
  };
  Value pointer =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value address = arith::AddIOp::create(
      b, loc, pointer,
      arith::MulIOp::create(b, loc, metadata.getOffset(), cst(bytes)));
  Value aligned = isMultiple(address, run * bytes);
  aligned =
      arith::AndIOp::create(b, loc, aligned, isMultiple(indices.back(), run));
  for (Value stride : metadata.getStrides().drop_back())
    aligned = arith::AndIOp::create(b, loc, aligned, isMultiple(stride, run));
  return aligned;
}

/// Distinct warps a layout tells apart (the others hold copies).
int64_t distinctWarps(DistLayoutAttr layout) {
  int64_t n = 1;
  for (int64_t w : layout.getWarps())
    n *= w;
  return n;
}

/// True when the tuning of `op`'s kernel loads its loops' tiles trips ahead
/// (stages of 2 or more).
static bool isPipelined(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  auto tuning = func ? tile::TuningAttr::lookup(func) : tile::TuningAttr();
  return tuning && tuning.getStages() >= 2;
}

/// A tile of `bytes` that several warps of `op`'s program hold whole
/// (`layout` tells `distinctWarps` apart) is loaded once and handed out
/// through shared memory when the copies would read at least 8 KiB more
/// from global memory than one load: from 8 KiB with two warps (the seed
/// kernel's tiles), from 2.7 KiB with four (a [16, 128] bf16 operand of the
/// recurrence at chunk 16, which every warp would otherwise load with
/// narrow accesses). In a pipelined kernel (isPipelined), whose register
/// tiles are loaded a trip ahead and so held twice, from 4 KiB more: with
/// two warps the recurrence's [16, 128] operands then stay out of the
/// registers (ptxas at chunk 16, K = 128: 228 registers without spills
/// at the cap of 255, 296 bytes spilled at 168; loaded by each warp
/// instead, 1012 and 4356 bytes spilled).
bool worthStaging(Operation *op, int64_t bytes, DistLayoutAttr layout) {
  int64_t numWarps = getProgramWarps(op);
  int64_t distinct = distinctWarps(layout);
  if (numWarps < 2 || distinct >= numWarps)
    return false;
  const int64_t threshold = isPipelined(op) ? 4096 : 8192;
  return bytes * (numWarps / distinct - 1) >= threshold;
}

struct LoadToRegisters : OpConversionPattern<tile::LoadOp> {
  LoadToRegisters(const TypeConverter &converter, MLIRContext *ctx,
                  SharedOperandMap &sharedOperands)
      : OpConversionPattern(converter, ctx), sharedOperands(sharedOperands) {}

  LogicalResult
  matchAndRewrite(tile::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getResult().getType());
    DistLayoutAttr layout = getLayout(type);
    if (!layout)
      return failure();
    Location loc = op.getLoc();
    int64_t numWarps = getProgramWarps(op);
    if (sharedOperands.count(op)) {
      // Copied one loop trip ahead by prefetchKeptLoads.
      replaceByUnusedRegisters(rewriter, op, type);
      return success();
    }
    if (keepsInSharedMemory(op)) {
      // Copied once, coalesced, with cp.async into a shared buffer the dots
      // read from; the registers of the tile itself are never used.
      Value buffer = allocSharedOperand(rewriter, loc, type);
      Block *block = op->getBlock();
      // A barrier first (readers of an earlier trip are done with the
      // buffer), unless an earlier copy of this block placed one with only
      // loads of global memory, allocations and pure ops since.
      Operation *previous = lastKeptLoad.lookup(block);
      bool leadingBarrier = !previous;
      for (Operation *it = previous ? previous->getNextNode() : nullptr;
           it && it != op.getOperation(); it = it->getNextNode())
        if (!isa<tile::LoadOp, memref::AllocOp>(it) && !isMemoryEffectFree(it))
          leadingBarrier = true;
      lastKeptLoad[block] = op;
      copyTileToShared(rewriter, loc, op, adaptor.getSource(),
                       adaptor.getIndices(), adaptor.getBounds(), buffer,
                       Value(), leadingBarrier);
      // Every thread's copies done and seen by all before the first reader
      // (the work in between overlaps them); right here if the readers are
      // elsewhere. A wait for all copies and its barrier that an earlier
      // copy of this block placed after this one and no later than this
      // one's first reader publish this one too.
      Operation *first = firstReaderInBlock(op);
      Operation *published = publishPoints.lookup(block);
      bool covered = first && published && op->isBeforeInBlock(published) &&
                     (published == first || published->isBeforeInBlock(first));
      if (!covered) {
        OpBuilder::InsertionGuard guard(rewriter);
        if (first)
          rewriter.setInsertionPoint(first);
        NVVM::CpAsyncWaitGroupOp::create(rewriter, loc, 0);
        gpu::BarrierOp::create(rewriter, loc);
        if (first)
          publishPoints[block] = first;
      }
      sharedOperands[op] = {buffer, Value()};
      replaceByUnusedRegisters(rewriter, op, type);
      return success();
    }
    int64_t bytes = type.getNumElements() *
                    type.getElementType().getIntOrFloatBitWidth() / 8;
    if (type.getRank() <= 2 && worthStaging(op, bytes, layout)) {
      auto plain =
          RankedTensorType::get(type.getShape(), type.getElementType());
      DistLayoutAttr coalesced = tile::getCoalescedLayout(plain, numWarps);
      if (distinctWarps(coalesced) > distinctWarps(layout)) {
        auto stagedType = RankedTensorType::get(
            type.getShape(), type.getElementType(), coalesced);
        Value staged =
            emitLoad(rewriter, loc, op, adaptor, coalesced, stagedType);
        rewriter.replaceOp(op, convertThroughSharedMemory(rewriter, loc, staged,
                                                          stagedType, type,
                                                          numWarps));
        return success();
      }
    }
    rewriter.replaceOp(op, emitLoad(rewriter, loc, op, adaptor, layout, type));
    return success();
  }

  /// Replaces the kept load `op` by registers nobody reads (the dots read
  /// its shared buffer).
  static void replaceByUnusedRegisters(ConversionPatternRewriter &rewriter,
                                       tile::LoadOp op,
                                       RankedTensorType type) {
    VectorType registers = getRegisterType(type);
    rewriter.replaceOp(
        op, arith::ConstantOp::create(
                rewriter, op.getLoc(), registers,
                DenseElementsAttr::get(
                    registers, rewriter.getZeroAttr(type.getElementType()))));
  }

  /// The registers of `type` (laid out as `layout`) read from memory.
  static Value emitLoad(ConversionPatternRewriter &rewriter, Location loc,
                        tile::LoadOp op, OpAdaptor adaptor,
                        DistLayoutAttr layout, RankedTensorType type) {
    Type element = type.getElementType();
    TypedAttr padding = op.getPaddingAttr();
    if (!padding)
      padding = cast<TypedAttr>(rewriter.getZeroAttr(element));
    Value pad = arith::ConstantOp::create(rewriter, loc, padding);
    TileAddressing addressing(rewriter, loc, adaptor.getSource(),
                              adaptor.getIndices(), adaptor.getBounds(),
                              op.getDims(), layout,
                              getThreadPosition(rewriter, loc));
    auto loadElement = [&](OpBuilder &b, Location l, int64_t r) -> Value {
      ElementAccess access = addressing.access(r);
      auto ifInside = scf::IfOp::create(
          b, l, access.inBounds,
          [&](OpBuilder &nb, Location nl) {
            Value v = memref::LoadOp::create(nb, nl, adaptor.getSource(),
                                             access.indices);
            scf::YieldOp::create(nb, nl, v);
          },
          [&](OpBuilder &nb, Location nl) {
            scf::YieldOp::create(nb, nl, pad);
          });
      return ifInside.getResult(0);
    };
    auto memrefType = cast<MemRefType>(adaptor.getSource().getType());
    int64_t run = getRunLength(layout, memrefType, op.getDims());
    Value aligned;
    if (run > 1) {
      aligned = buildRunsAligned(rewriter, loc, adaptor.getSource(),
                                 adaptor.getIndices(), run);
      addressing.preparePointers();
    }
    // Each run checked on its own (a tile the box cuts, or unaligned).
    auto checkedRuns = [&](OpBuilder &b0) {
      SmallVector<Value> values;
      for (int64_t r = 0; r < layout.getNumRegisters(); r += run) {
        if (run == 1) {
          values.push_back(loadElement(b0, loc, r));
          continue;
        }
        // The run is inside the box when its last element is.
        Value fast = arith::AndIOp::create(
            b0, loc, aligned, addressing.access(r + run - 1).inBounds);
        auto vectorType = VectorType::get({run}, element);
        SmallVector<Value> first = addressing.access(r).indices;
        int64_t alignment = run * memrefType.getElementTypeBitWidth() / 8;
        auto branch = scf::IfOp::create(
            b0, loc, fast,
            [&](OpBuilder &b, Location l) {
              if (Value pointer = addressing.pointerTo(b, l, r)) {
                scf::YieldOp::create(
                    b, l,
                    LLVM::LoadOp::create(b, l, vectorType, pointer, alignment)
                        .getResult());
                return;
              }
              auto load = vector::LoadOp::create(b, l, vectorType,
                                                 adaptor.getSource(), first);
              load.setAlignment(alignment);
              scf::YieldOp::create(b, l, load.getResult());
            },
            [&](OpBuilder &b, Location l) {
              SmallVector<Value> elements;
              for (int64_t i = 0; i < run; ++i)
                elements.push_back(loadElement(b, l, r + i));
              scf::YieldOp::create(
                  b, l,
                  vector::FromElementsOp::create(b, l, vectorType, elements)
                      .getResult());
            });
        for (int64_t i = 0; i < run; ++i)
          values.push_back(extractRegister(b0, loc, branch.getResult(0), i));
      }
      return buildRegisters(b0, loc, getRegisterType(type), values);
    };
    if (run == 1 || !addressing.hasPointers())
      return checkedRuns(rewriter);
    // The box holds the whole tile and the runs are aligned (the usual
    // case, checked once): every run is one unchecked vector load.
    auto vectorType = VectorType::get({run}, element);
    int64_t alignment = run * memrefType.getElementTypeBitWidth() / 8;
    Value whole =
        arith::AndIOp::create(rewriter, loc, aligned, addressing.coversTile());
    auto branch = scf::IfOp::create(
        rewriter, loc, whole,
        [&](OpBuilder &b, Location l) {
          SmallVector<Value> values;
          for (int64_t r = 0; r < layout.getNumRegisters(); r += run) {
            Value vec = LLVM::LoadOp::create(
                b, l, vectorType, addressing.pointerTo(b, l, r), alignment);
            for (int64_t i = 0; i < run; ++i)
              values.push_back(extractRegister(b, l, vec, i));
          }
          scf::YieldOp::create(
              b, l, buildRegisters(b, l, getRegisterType(type), values));
        },
        [&](OpBuilder &b, Location l) {
          scf::YieldOp::create(b, l, checkedRuns(b));
        });
    return branch.getResult(0);
  }

private:
  SharedOperandMap &sharedOperands;
  /// Per block, the last kept load copied so far and the op before which
  /// the wait and barrier publishing copies were placed.
  mutable llvm::DenseMap<Block *, Operation *> lastKeptLoad, publishPoints;
};

struct StoreFromRegisters : OpConversionPattern<tile::StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getValue().getType());
    DistLayoutAttr layout = getLayout(type);
    if (!layout)
      return failure();
    Location loc = op.getLoc();
    ThreadPosition thread = getThreadPosition(rewriter, loc);
    Value owner =
        isCopyOwner(rewriter, loc, layout, thread, getProgramWarps(op));
    TileAddressing addressing(rewriter, loc, adaptor.getDest(),
                              adaptor.getIndices(), adaptor.getBounds(),
                              op.getDims(), layout, thread);
    auto storeElement = [&](OpBuilder &b, Location l, int64_t r) {
      ElementAccess access = addressing.access(r);
      Value write = arith::AndIOp::create(b, l, owner, access.inBounds);
      Value v = extractRegister(b, l, adaptor.getValue(), r);
      scf::IfOp::create(b, l, write, [&](OpBuilder &nb, Location nl) {
        memref::StoreOp::create(nb, nl, v, adaptor.getDest(), access.indices);
        scf::YieldOp::create(nb, nl);
      });
    };
    auto memrefType = cast<MemRefType>(adaptor.getDest().getType());
    int64_t run = getRunLength(layout, memrefType, op.getDims());
    Value aligned;
    if (run > 1) {
      aligned = arith::AndIOp::create(
          rewriter, loc, owner,
          buildRunsAligned(rewriter, loc, adaptor.getDest(),
                           adaptor.getIndices(), run));
      addressing.preparePointers();
    }
    Type element = type.getElementType();
    // The registers of the run starting at register `r`, as one vector.
    auto runVector = [&](OpBuilder &b, Location l, int64_t r) -> Value {
      SmallVector<Value> elements;
      for (int64_t i = 0; i < run; ++i)
        elements.push_back(extractRegister(b, l, adaptor.getValue(), r + i));
      return vector::FromElementsOp::create(
          b, l, VectorType::get({run}, element), elements);
    };
    // Each run checked on its own (a tile the box cuts, or unaligned).
    auto checkedRuns = [&](OpBuilder &b0) {
      for (int64_t r = 0; r < layout.getNumRegisters(); r += run) {
        if (run == 1) {
          storeElement(b0, loc, r);
          continue;
        }
        Value fast = arith::AndIOp::create(
            b0, loc, aligned, addressing.access(r + run - 1).inBounds);
        SmallVector<Value> first = addressing.access(r).indices;
        int64_t alignment = run * memrefType.getElementTypeBitWidth() / 8;
        scf::IfOp::create(
            b0, loc, fast,
            [&](OpBuilder &b, Location l) {
              Value vec = runVector(b, l, r);
              if (Value pointer = addressing.pointerTo(b, l, r)) {
                LLVM::StoreOp::create(b, l, vec, pointer, alignment);
              } else {
                auto store = vector::StoreOp::create(b, l, vec,
                                                     adaptor.getDest(), first);
                store.setAlignment(alignment);
              }
              scf::YieldOp::create(b, l);
            },
            [&](OpBuilder &b, Location l) {
              for (int64_t i = 0; i < run; ++i)
                storeElement(b, l, r + i);
              scf::YieldOp::create(b, l);
            });
      }
    };
    if (run == 1 || !addressing.hasPointers()) {
      checkedRuns(rewriter);
    } else {
      // The box holds the whole tile and the runs are aligned (the usual
      // case, checked once): every run is one unchecked vector store.
      int64_t alignment = run * memrefType.getElementTypeBitWidth() / 8;
      Value whole = arith::AndIOp::create(rewriter, loc, aligned,
                                          addressing.coversTile());
      scf::IfOp::create(
          rewriter, loc, whole,
          [&](OpBuilder &b, Location l) {
            for (int64_t r = 0; r < layout.getNumRegisters(); r += run)
              LLVM::StoreOp::create(b, l, runVector(b, l, r),
                                    addressing.pointerTo(b, l, r), alignment);
            scf::YieldOp::create(b, l);
          },
          [&](OpBuilder &b, Location l) {
            checkedRuns(b);
            scf::YieldOp::create(b, l);
          });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// A conversion kept in shared memory (keepsInSharedMemory): the owners of
/// the source's elements store them once into a padded buffer, between a
/// barrier (readers of an earlier trip are done with it) and a barrier
/// that publishes them; the dots read their fragments from the buffer.
struct KeptConversionToShared : OpConversionPattern<tile::ConvertLayoutOp> {
  KeptConversionToShared(const TypeConverter &converter, MLIRContext *ctx,
                         SharedOperandMap &sharedOperands)
      : OpConversionPattern(converter, ctx, /*benefit=*/2),
        sharedOperands(sharedOperands) {}

  LogicalResult
  matchAndRewrite(tile::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!keepsInSharedMemory(op))
      return failure();
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getResult().getType());
    Value buffer = allocSharedOperand(rewriter, loc, type);
    gpu::BarrierOp::create(rewriter, loc);
    storeToShared(rewriter, loc, adaptor.getInput(),
                  cast<RankedTensorType>(op.getInput().getType()),
                  getProgramWarps(op), buffer);
    gpu::BarrierOp::create(rewriter, loc);
    sharedOperands[op] = {buffer, Value()};
    VectorType registers = getRegisterType(type);
    rewriter.replaceOp(
        op, arith::ConstantOp::create(
                rewriter, loc, registers,
                DenseElementsAttr::get(
                    registers, rewriter.getZeroAttr(type.getElementType()))));
    return success();
  }

private:
  SharedOperandMap &sharedOperands;
};

} // namespace

void simt::copyTileToShared(OpBuilder &rewriter, Location loc,
                            tile::LoadOp op, Value source, ValueRange indices,
                            ValueRange bounds, Value buffer, Value rowOffset,
                            bool leadingBarrier, bool commit) {
  auto type = cast<RankedTensorType>(op.getResult().getType());
  auto plain = RankedTensorType::get(type.getShape(), type.getElementType());
  DistLayoutAttr layout =
      tile::getCoalescedLayout(plain, getProgramWarps(op));
  Type element = type.getElementType();
  TypedAttr padding = op.getPaddingAttr();
  if (!padding)
    padding = cast<TypedAttr>(rewriter.getZeroAttr(element));
  Value pad = arith::ConstantOp::create(rewriter, loc, padding);
  ThreadPosition thread = getThreadPosition(rewriter, loc);
  TileAddressing addressing(rewriter, loc, source,
                            indices, bounds,
                            op.getDims(), layout, thread);
  SmallVector<Value> base = getThreadOffsets(rewriter, loc, layout, thread);
  if (rowOffset)
    base[0] = arith::AddIOp::create(rewriter, loc, base[0], rowOffset);
  auto memrefType = cast<MemRefType>(source.getType());
  int64_t run = getRunLength(layout, memrefType, op.getDims());
  Value aligned;
  if (run > 1)
    aligned = buildRunsAligned(rewriter, loc, source,
                               indices, run);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  auto bufferIndices = [&](OpBuilder &b, int64_t r) {
    SmallVector<Value> at;
    for (auto [v, o] : llvm::zip(base, layout.getRegisterOffsets(r)))
      at.push_back(o ? arith::AddIOp::create(b, loc, v, cst(o)).getResult()
                     : v);
    return at;
  };
  auto copyElement = [&](OpBuilder &b, Location l, int64_t r) {
    ElementAccess access = addressing.access(r);
    auto ifInside = scf::IfOp::create(
        b, l, access.inBounds,
        [&](OpBuilder &nb, Location nl) {
          scf::YieldOp::create(nb, nl,
                               memref::LoadOp::create(nb, nl,
                                                      source,
                                                      access.indices)
                                   .getResult());
        },
        [&](OpBuilder &nb, Location nl) {
          scf::YieldOp::create(nb, nl, pad);
        });
    memref::StoreOp::create(b, l, ifInside.getResult(0), buffer,
                            bufferIndices(b, r));
  };
  if (leadingBarrier)
    gpu::BarrierOp::create(rewriter, loc);
  int64_t runBytes = run * memrefType.getElementTypeBitWidth() / 8;
  bool pieces = run > 1 && (runBytes == 4 || runBytes == 8 || runBytes == 16);
  // Each run checked on its own (a tile the box cuts, or unaligned).
  auto checkedRuns = [&](OpBuilder &b0) {
    for (int64_t r = 0; r < layout.getNumRegisters(); r += run) {
      if (run == 1 || (runBytes != 4 && runBytes != 8 && runBytes != 16)) {
        for (int64_t i = 0; i < run; ++i)
          copyElement(b0, loc, r + i);
        continue;
      }
      Value fast = arith::AndIOp::create(
          b0, loc, aligned, addressing.access(r + run - 1).inBounds);
      SmallVector<Value> first = addressing.access(r).indices;
      scf::IfOp::create(
          b0, loc, fast,
          [&](OpBuilder &b, Location l) {
            Value token = nvgpu::DeviceAsyncCopyOp::create(
                b, l, buffer, bufferIndices(b, r), source, first,
                b.getIndexAttr(run), Value(),
                runBytes == 16 ? b.getUnitAttr() : UnitAttr());
            if (commit)
              nvgpu::DeviceAsyncCreateGroupOp::create(b, l, ValueRange{token});
            scf::YieldOp::create(b, l);
          },
          [&](OpBuilder &b, Location l) {
            for (int64_t i = 0; i < run; ++i)
              copyElement(b, l, r + i);
            scf::YieldOp::create(b, l);
          });
    }
  };
  if (!pieces) {
    checkedRuns(rewriter);
    return;
  }
  // The box holds the whole tile and the runs are aligned (the usual
  // case, checked once): every run is one cp.async, one commit for all.
  Value whole =
      arith::AndIOp::create(rewriter, loc, aligned, addressing.coversTile());
  scf::IfOp::create(
      rewriter, loc, whole,
      [&](OpBuilder &b, Location l) {
        SmallVector<Value> tokens;
        for (int64_t r = 0; r < layout.getNumRegisters(); r += run)
          tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
              b, l, buffer, bufferIndices(b, r), source,
              addressing.access(r).indices, b.getIndexAttr(run), Value(),
              runBytes == 16 ? b.getUnitAttr() : UnitAttr()));
        if (commit)
          nvgpu::DeviceAsyncCreateGroupOp::create(b, l, tokens);
        scf::YieldOp::create(b, l);
      },
      [&](OpBuilder &b, Location l) {
        checkedRuns(b);
        scf::YieldOp::create(b, l);
      });
}

Value simt::allocSharedOperand(OpBuilder &b, Location loc,
                               RankedTensorType type, int64_t slots) {
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  ArrayRef<int64_t> shape = type.getShape();
  return memref::AllocOp::create(
      b, loc,
      MemRefType::get({slots * shape[0], shape[1] + kSharedOperandPad},
                      type.getElementType(), MemRefLayoutAttrInterface(),
                      space));
}

Operation *simt::firstReaderInBlock(tile::LoadOp load) {
  Block *block = load->getBlock();
  Operation *first = nullptr;
  for (Operation *user : load.getResult().getUsers()) {
    SmallVector<Operation *> readers = {user};
    if (auto trans = dyn_cast<tile::TransOp>(user))
      readers.append(trans->user_begin(), trans->user_end());
    for (Operation *reader : readers) {
      if (reader->getBlock() != block)
        return nullptr;
      if (!first || reader->isBeforeInBlock(first))
        first = reader;
    }
  }
  return first;
}

/// True when a 16-bit tile `value` of `op`'s kernel can live in a padded
/// shared buffer for ldmatrix: rank 2, at least 8 KiB, rows a multiple of
/// 16 and columns of 8, held whole by several warps, and read only by
/// dots of its element type as A or B (directly or, with
/// `throughTranspose`, through a tile.trans that only such dots read).
static bool isSharedDotOperand(Operation *op, Value value,
                               bool throughTranspose) {
  auto type = cast<RankedTensorType>(value.getType());
  DistLayoutAttr layout = getLayout(type);
  Type element = type.getElementType();
  if (!layout || type.getRank() != 2 ||
      !(element.isBF16() || element.isF16()) ||
      !worthStaging(op, type.getNumElements() * 2, layout) ||
      type.getDimSize(0) % 16 ||
      type.getDimSize(1) % 8 || value.use_empty())
    return false;
  // Rows of the padded buffer must start 16-byte aligned (ldmatrix).
  if ((type.getDimSize(1) + kSharedOperandPad) * 2 % 16)
    return false;
  auto readByDot = [&](OpOperand &use) {
    auto dot = dyn_cast<tile::DotOp>(use.getOwner());
    return dot && use.getOperandNumber() < 2 &&
           cast<RankedTensorType>(dot.getA().getType()).getElementType() ==
               element &&
           cast<RankedTensorType>(dot.getB().getType()).getElementType() ==
               element;
  };
  for (OpOperand &use : value.getUses()) {
    if (auto trans = dyn_cast<tile::TransOp>(use.getOwner());
        trans && throughTranspose) {
      if (trans.getResult().use_empty() ||
          !llvm::all_of(trans.getResult().getUses(), readByDot))
        return false;
      continue;
    }
    if (!readByDot(use))
      return false;
  }
  return true;
}

bool simt::keepsInSharedMemory(tile::LoadOp load) {
  return isSharedDotOperand(load, load.getResult(), /*throughTranspose=*/true);
}

bool simt::keepsInSharedMemory(tile::ConvertLayoutOp convert) {
  return getLayout(convert.getInput().getType()) &&
         isSharedDotOperand(convert, convert.getResult(),
                            /*throughTranspose=*/false);
}

void simt::populateSIMTMemoryPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns,
                                      SharedOperandMap &sharedOperands) {
  patterns.add<LoadToRegisters>(converter, patterns.getContext(),
                                sharedOperands);
  patterns.add<StoreFromRegisters>(converter, patterns.getContext());
  patterns.add<KeptConversionToShared>(converter, patterns.getContext(),
                                       sharedOperands);
}
