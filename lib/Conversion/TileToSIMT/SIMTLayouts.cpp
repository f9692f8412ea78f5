//===- SIMTLayouts.cpp - thread positions and register maps ---------------===//
//
// The run-time side of a #tile.dist layout (which elements the current
// thread holds) and the compile-time matching of two layouts' registers.
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::kda;
using namespace mlir::kda::simt;

DistLayoutAttr simt::getLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? dyn_cast_or_null<DistLayoutAttr>(tensor.getEncoding())
                : DistLayoutAttr();
}

VectorType simt::getRegisterType(RankedTensorType tile) {
  DistLayoutAttr layout = getLayout(tile);
  assert(layout && "a register tile has a #tile.dist layout");
  return VectorType::get({layout.getNumRegisters()}, tile.getElementType());
}

ThreadPosition simt::getThreadPosition(OpBuilder &b, Location loc) {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value warpSize =
      arith::ConstantIndexOp::create(b, loc, DistLayoutAttr::kWarpSize);
  return {arith::RemUIOp::create(b, loc, tid, warpSize),
          arith::DivUIOp::create(b, loc, tid, warpSize)};
}

/// (id / stride) mod count, times `scale`.
static Value idField(OpBuilder &b, Location loc, Value id, int64_t stride,
                     int64_t count, int64_t scale) {
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  if (count == 1)
    return cst(0);
  Value field = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, id, cst(stride)), cst(count));
  return scale == 1 ? field : arith::MulIOp::create(b, loc, field, cst(scale));
}

SmallVector<Value> simt::getThreadOffsets(OpBuilder &b, Location loc,
                                          DistLayoutAttr layout,
                                          ThreadPosition thread) {
  SmallVector<Value> offsets;
  for (int64_t d = 0; d < layout.getRank(); ++d) {
    int64_t elems = layout.getElems()[d];
    int64_t warpSpan = layout.getBatch()[d] * layout.getOuter()[d] *
                       layout.getLanes()[d] * elems;
    Value lanePart = idField(b, loc, thread.lane, layout.getLaneStrides()[d],
                             layout.getLanes()[d], elems);
    Value warpPart = idField(b, loc, thread.warp, layout.getWarpStrides()[d],
                             layout.getWarps()[d], warpSpan);
    offsets.push_back(arith::AddIOp::create(b, loc, lanePart, warpPart));
  }
  return offsets;
}

/// The id bits that `counts` (with `strides`) take.
static int64_t usedBits(ArrayRef<int64_t> counts, ArrayRef<int64_t> strides) {
  int64_t bits = 0;
  for (auto [count, stride] : llvm::zip(counts, strides))
    bits |= (count - 1) * stride;
  return bits;
}

Value simt::isCopyOwner(OpBuilder &b, Location loc, DistLayoutAttr layout,
                        ThreadPosition thread, int64_t numWarps) {
  int64_t laneCopies = (DistLayoutAttr::kWarpSize - 1) &
                       ~usedBits(layout.getLanes(), layout.getLaneStrides());
  int64_t warpCopies = (llvm::PowerOf2Ceil(std::max<int64_t>(numWarps, 1)) - 1) &
                       ~usedBits(layout.getWarps(), layout.getWarpStrides());
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  Value owner = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  for (auto [id, mask] : {std::pair<Value, int64_t>{thread.lane, laneCopies},
                          {thread.warp, warpCopies}}) {
    if (mask == 0)
      continue;
    Value bits = arith::AndIOp::create(b, loc, id, cst(mask));
    Value zero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bits,
                                       cst(0));
    owner = arith::AndIOp::create(b, loc, owner, zero);
  }
  return owner;
}

/// Row-major linear index of `coords` in a tile of `shape`.
static int64_t linearize(ArrayRef<int64_t> coords, ArrayRef<int64_t> shape) {
  int64_t index = 0;
  for (auto [c, size] : llvm::zip(coords, shape))
    index = index * size + c;
  return index;
}

FailureOr<SmallVector<int64_t>>
simt::matchRegisters(DistLayoutAttr src, DistLayoutAttr dst, int64_t numWarps,
                     CoordinateMap dstToSrc) {
  SmallVector<int64_t> srcShape = src.getTileShape();
  const int64_t numSrc = src.getNumRegisters();
  const int64_t numDst = dst.getNumRegisters();
  SmallVector<int64_t> match(numDst, -1);
  llvm::DenseMap<int64_t, int64_t> where;
  for (int64_t warp = 0; warp < std::max<int64_t>(numWarps, 1); ++warp) {
    for (int64_t lane = 0; lane < DistLayoutAttr::kWarpSize; ++lane) {
      where.clear();
      for (int64_t r = 0; r < numSrc; ++r)
        where[linearize(src.getCoordinates(warp, lane, r), srcShape)] = r;
      for (int64_t r = 0; r < numDst; ++r) {
        SmallVector<int64_t> wanted = dstToSrc(dst.getCoordinates(warp, lane, r));
        auto it = where.find(linearize(wanted, srcShape));
        if (it == where.end())
          return failure();
        if (match[r] == -1)
          match[r] = it->second;
        else if (match[r] != it->second)
          return failure();
      }
    }
  }
  return match;
}

FailureOr<SmallVector<std::array<int64_t, 2>>>
simt::matchWarpTransposes(DistLayoutAttr src, DistLayoutAttr dst,
                          int64_t numWarps, CoordinateMap dstToSrc) {
  const int64_t numSrc = src.getNumRegisters();
  const int64_t numDst = dst.getNumRegisters();
  if (numDst % 2)
    return failure();
  auto findSource = [&](int64_t warp, ArrayRef<int64_t> wanted) -> int64_t {
    for (int64_t r = 0; r < numSrc; ++r)
      if (llvm::equal(src.getCoordinates(warp, 0, r), wanted))
        return r;
    return -1;
  };
  SmallVector<std::array<int64_t, 2>> pairs;
  for (int64_t d = 0; d < numDst; d += 2) {
    // movmatrix.trans: destination lane l, element j holds source row
    // 2 (l % 4) + j, column l / 4 of the 8x8 matrix, which source lane
    // 4 row + column / 2 holds as element column % 2. Lane 0's element 0
    // comes from source lane 0's element 0, lane 4's from its element 1.
    std::array<int64_t, 2> pair = {
        findSource(0, dstToSrc(dst.getCoordinates(0, 0, d))),
        findSource(0, dstToSrc(dst.getCoordinates(0, 4, d)))};
    if (pair[0] < 0 || pair[1] < 0)
      return failure();
    for (int64_t warp = 0; warp < std::max<int64_t>(numWarps, 1); ++warp)
      for (int64_t lane = 0; lane < DistLayoutAttr::kWarpSize; ++lane)
        for (int64_t j = 0; j < 2; ++j) {
          int64_t row = 2 * (lane % 4) + j, column = lane / 4;
          if (!llvm::equal(src.getCoordinates(warp, 4 * row + column / 2,
                                              pair[column % 2]),
                           dstToSrc(dst.getCoordinates(warp, lane, d + j))))
            return failure();
        }
    pairs.push_back(pair);
  }
  return pairs;
}

FailureOr<SmallVector<ShuffledRegister>>
simt::matchWarpShuffles(DistLayoutAttr src, DistLayoutAttr dst,
                        int64_t numWarps, CoordinateMap dstToSrc) {
  constexpr int64_t kLanes = DistLayoutAttr::kWarpSize;
  const int64_t warps = std::max<int64_t>(numWarps, 1);
  SmallVector<int64_t> srcShape = src.getTileShape();
  const int64_t numSrc = src.getNumRegisters();
  const int64_t numDst = dst.getNumRegisters();
  // Per warp, destination register and lane: (source lane, source
  // register) in the same warp.
  auto at = [&](int64_t warp, int64_t r, int64_t lane) {
    return (warp * numDst + r) * kLanes + lane;
  };
  SmallVector<std::array<int64_t, 2>> table(warps * numDst * kLanes);
  llvm::DenseMap<int64_t, std::array<int64_t, 2>> where;
  for (int64_t warp = 0; warp < warps; ++warp) {
    // The lowest (lane, register) of this warp holding each element: with
    // replicated lanes, the copy whose replicated lane bits are 0.
    where.clear();
    for (int64_t lane = kLanes - 1; lane >= 0; --lane)
      for (int64_t r = numSrc - 1; r >= 0; --r)
        where[linearize(src.getCoordinates(warp, lane, r), srcShape)] = {lane,
                                                                         r};
    for (int64_t r = 0; r < numDst; ++r)
      for (int64_t lane = 0; lane < kLanes; ++lane) {
        auto it = where.find(
            linearize(dstToSrc(dst.getCoordinates(warp, lane, r)), srcShape));
        if (it == where.end())
          return failure();
        table[at(warp, r, lane)] = it->second;
      }
  }
  SmallVector<ShuffledRegister> plan;
  for (int64_t r = 0; r < numDst; ++r) {
    ShuffledRegister reg;
    reg.laneBase = table[at(0, r, 0)][0];
    for (int64_t bit = 0; bit < 5; ++bit)
      reg.laneFlips[bit] = table[at(0, r, int64_t(1) << bit)][0] ^ reg.laneBase;
    // Candidate index per lane, from warp 0's registers in lane order.
    SmallVector<int64_t> candidate(kLanes);
    SmallVector<int64_t> firstRegisters;
    for (int64_t lane = 0; lane < kLanes; ++lane) {
      int64_t source = table[at(0, r, lane)][1];
      auto *found = llvm::find(firstRegisters, source);
      candidate[lane] = found - firstRegisters.begin();
      if (found == firstRegisters.end())
        firstRegisters.push_back(source);
    }
    reg.sources.assign(firstRegisters.size(), SmallVector<int64_t>(warps, -1));
    reg.selectMasks.assign(firstRegisters.size() - 1, 0);
    for (int64_t lane = 0; lane < kLanes; ++lane)
      if (candidate[lane] > 0)
        reg.selectMasks[candidate[lane] - 1] |= uint32_t(1) << lane;
    for (int64_t warp = 0; warp < warps; ++warp)
      for (int64_t lane = 0; lane < kLanes; ++lane) {
        auto [fromLane, source] = table[at(warp, r, lane)];
        int64_t expected = reg.laneBase;
        for (int64_t bit = 0; bit < 5; ++bit)
          if (lane & (int64_t(1) << bit))
            expected ^= reg.laneFlips[bit];
        if (fromLane != expected)
          return failure();
        int64_t &known = reg.sources[candidate[lane]][warp];
        if (known == -1)
          known = source;
        else if (known != source)
          return failure();
      }
    for (SmallVector<int64_t> &perWarp : reg.sources)
      if (llvm::all_equal(perWarp))
        perWarp.resize(1);
    plan.push_back(std::move(reg));
  }
  return plan;
}

int64_t simt::getProgramWarps(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  auto tuning = func ? tile::TuningAttr::lookup(func) : tile::TuningAttr();
  return tuning ? std::max<int64_t>(tuning.getThreads() /
                                        DistLayoutAttr::kWarpSize,
                                    1)
                : 4;
}

Value simt::extractRegister(OpBuilder &b, Location loc, Value registers,
                            int64_t index) {
  return vector::ExtractOp::create(b, loc, registers, ArrayRef<int64_t>{index});
}

Value simt::buildRegisters(OpBuilder &b, Location loc, VectorType type,
                           ArrayRef<Value> values) {
  return vector::FromElementsOp::create(b, loc, type, values);
}

/// `base` plus constant `offsets`, dimension by dimension.
static SmallVector<Value> offsetIndices(OpBuilder &b, Location loc,
                                       ArrayRef<Value> base,
                                       ArrayRef<int64_t> offsets) {
  SmallVector<Value> indices;
  for (auto [v, o] : llvm::zip(base, offsets))
    indices.push_back(
        o ? arith::AddIOp::create(
                b, loc, v, arith::ConstantIndexOp::create(b, loc, o))
                .getResult()
          : v);
  return indices;
}

/// How many consecutive registers of `layout` one vector store writes to
/// `buffer`: the thread's run of elements along the last dimension (at
/// most 16 bytes), where the buffer's rows and offset keep every run
/// aligned to its size; 1 where the buffer widens the tile's `element`
/// type (i1 tiles travel as bytes).
static int64_t getSharedStoreRun(DistLayoutAttr layout, Type element,
                                 Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getElementType() != element || !element.isIntOrFloat() ||
      element.getIntOrFloatBitWidth() < 8 ||
      layout.getRank() != type.getRank())
    return 1;
  const int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t run = layout.getElems().back();
  while (run > 1 && run * bytes > 16)
    run /= 2;
  if (run < 2 || !llvm::isPowerOf2_64(run))
    return 1;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || ShapedType::isDynamic(offset) || offset % run)
    return 1;
  for (int64_t stride : ArrayRef<int64_t>(strides).drop_back())
    if (ShapedType::isDynamic(stride) || stride % run)
      return 1;
  return run;
}

void simt::storeToShared(OpBuilder &b, Location loc, Value registers,
                         RankedTensorType type, int64_t numWarps,
                         Value buffer) {
  DistLayoutAttr src = getLayout(type);
  Type element = type.getElementType();
  Type stored = cast<MemRefType>(buffer.getType()).getElementType();
  ThreadPosition thread = getThreadPosition(b, loc);
  Value owner = isCopyOwner(b, loc, src, thread, numWarps);
  auto ifOwner = scf::IfOp::create(b, loc, owner, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOwner.thenBlock());
  SmallVector<Value> base = getThreadOffsets(b, loc, src, thread);
  const int64_t run = getSharedStoreRun(src, element, buffer);
  for (int64_t r = 0; r < src.getNumRegisters(); r += run) {
    SmallVector<Value> at =
        offsetIndices(b, loc, base, src.getRegisterOffsets(r));
    if (run > 1) {
      SmallVector<Value> values;
      for (int64_t i = 0; i < run; ++i)
        values.push_back(extractRegister(b, loc, registers, r + i));
      auto vectorType = VectorType::get({run}, element);
      vector::StoreOp::create(
          b, loc, vector::FromElementsOp::create(b, loc, vectorType, values),
          buffer, at, /*nontemporal=*/false,
          llvm::MaybeAlign(run * element.getIntOrFloatBitWidth() / 8));
      continue;
    }
    Value v = extractRegister(b, loc, registers, r);
    if (stored != element)
      v = arith::ExtUIOp::create(b, loc, stored, v);
    memref::StoreOp::create(b, loc, v, buffer, at);
  }
}

Value simt::storeToSharedBuffer(OpBuilder &b, Location loc, Value registers,
                               RankedTensorType type, int64_t numWarps,
                               bool leadingBarrier) {
  Type element = type.getElementType();
  // i1 tiles travel as bytes: shared memory holds whole bytes.
  Type stored = element.isInteger(1) ? b.getI8Type() : element;
  auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                          gpu::AddressSpace::Workgroup);
  auto bufferType = MemRefType::get(type.getShape(), stored,
                                    MemRefLayoutAttrInterface(), space);
  Value buffer = memref::AllocOp::create(b, loc, bufferType);
  if (leadingBarrier)
    gpu::BarrierOp::create(b, loc);
  storeToShared(b, loc, registers, type, numWarps, buffer);
  return buffer;
}

Value simt::loadFromSharedBuffer(OpBuilder &b, Location loc, Value buffer,
                                 RankedTensorType type,
                                 ArrayRef<int64_t> permutation) {
  DistLayoutAttr dst = getLayout(type);
  Type element = type.getElementType();
  Type stored = cast<MemRefType>(buffer.getType()).getElementType();
  // Source coordinate permutation[i] is result coordinate i.
  auto toSource = [&](auto values) {
    if (permutation.empty())
      return values;
    auto permuted = values;
    for (auto [i, p] : llvm::enumerate(permutation))
      permuted[p] = values[i];
    return permuted;
  };
  ThreadPosition thread = getThreadPosition(b, loc);
  SmallVector<Value> base = toSource(getThreadOffsets(b, loc, dst, thread));
  SmallVector<Value> values;
  for (int64_t r = 0; r < dst.getNumRegisters(); ++r) {
    Value v = memref::LoadOp::create(
        b, loc, buffer,
        offsetIndices(b, loc, base, toSource(dst.getRegisterOffsets(r))));
    if (stored != element)
      v = arith::TruncIOp::create(b, loc, element, v);
    values.push_back(v);
  }
  return buildRegisters(b, loc, getRegisterType(type), values);
}

Value simt::convertThroughSharedMemory(OpBuilder &b, Location loc,
                                       Value registers,
                                       RankedTensorType srcType,
                                       RankedTensorType dstType,
                                       int64_t numWarps,
                                       ArrayRef<int64_t> permutation) {
  // Threads may still read the buffer of an earlier trip through a loop.
  Value buffer = storeToSharedBuffer(b, loc, registers, srcType, numWarps,
                                     /*leadingBarrier=*/true);
  gpu::BarrierOp::create(b, loc);
  return loadFromSharedBuffer(b, loc, buffer, dstType, permutation);
}
