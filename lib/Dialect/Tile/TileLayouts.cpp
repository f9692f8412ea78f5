//===- TileLayouts.cpp - distributed layouts of tiles ---------------------===//
//
// #tile.dist: verification, the coordinate map of a layout, and builders of
// the mma.sync fragment layouts.
//
//===----------------------------------------------------------------------===//

#include "kda/Dialect/Tile/TileDialect.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::kda::tile;

/// Splits a mixed-radix index over `sizes` with dimension 0 fastest.
static SmallVector<int64_t> delinearize(int64_t index, ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> digits;
  for (int64_t size : sizes) {
    digits.push_back(index % size);
    index /= size;
  }
  return digits;
}

/// Checks that the bit fields [log2 stride, log2 stride + log2 count) of
/// the dimensions with count > 1 are disjoint and lie below `maxBits`.
static LogicalResult
verifyIdBits(function_ref<InFlightDiagnostic()> emitError, StringRef what,
             ArrayRef<int64_t> counts, ArrayRef<int64_t> strides,
             int64_t maxBits) {
  uint64_t used = 0;
  for (auto [d, pair] : llvm::enumerate(llvm::zip(counts, strides))) {
    auto [count, stride] = pair;
    if (count == 1)
      continue;
    int64_t low = llvm::Log2_64(stride);
    int64_t high = low + llvm::Log2_64(count);
    if (high > maxBits)
      return emitError() << what << " of dimension " << d << " ("
                         << count << " with stride " << stride
                         << ") need id bits up to " << high
                         << ", more than the " << maxBits << " available";
    uint64_t bits = ((uint64_t(1) << high) - 1) & ~((uint64_t(1) << low) - 1);
    if (used & bits)
      return emitError() << what << " of dimension " << d
                         << " share id bits with another dimension (stride "
                         << stride << ", count " << count << ")";
    used |= bits;
  }
  return success();
}

LogicalResult DistLayoutAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> warps,
    ArrayRef<int64_t> batch, ArrayRef<int64_t> outer, ArrayRef<int64_t> lanes,
    ArrayRef<int64_t> elems, ArrayRef<int64_t> laneStrides,
    ArrayRef<int64_t> warpStrides) {
  const size_t rank = warps.size();
  std::pair<StringRef, ArrayRef<int64_t>> fields[] = {
      {"warps", warps},   {"batch", batch},
      {"outer", outer},   {"lanes", lanes},
      {"elems", elems},   {"lane_strides", laneStrides},
      {"warp_strides", warpStrides}};
  for (auto [name, values] : fields) {
    if (values.size() != rank)
      return emitError() << "#tile.dist '" << name << "' has " << values.size()
                         << " entries, 'warps' has " << rank
                         << " (one per tile dimension)";
    for (int64_t v : values)
      if (v <= 0 || !llvm::isPowerOf2_64(v))
        return emitError() << "#tile.dist '" << name
                           << "' entries must be positive powers of 2, got "
                           << v;
  }
  int64_t laneCount = 1;
  for (int64_t l : lanes)
    laneCount *= l;
  if (laneCount > kWarpSize)
    return emitError() << "#tile.dist spreads " << laneCount
                       << " lanes over its dimensions; a warp has "
                       << kWarpSize;
  if (failed(verifyIdBits(emitError, "lanes", lanes, laneStrides,
                          llvm::Log2_64(kWarpSize))))
    return failure();
  // Up to 32 warps (1024 threads) per program.
  return verifyIdBits(emitError, "warps", warps, warpStrides, 5);
}

LogicalResult
DistLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type elementType,
                               function_ref<InFlightDiagnostic()> emitError) const {
  if (static_cast<int64_t>(shape.size()) != getRank())
    return emitError() << "#tile.dist of rank " << getRank()
                       << " on a tile of rank " << shape.size();
  SmallVector<int64_t> covered = getTileShape();
  for (auto [d, size] : llvm::enumerate(shape))
    if (ShapedType::isDynamic(size) || size != covered[d])
      return emitError() << "#tile.dist covers " << covered[d]
                         << " elements along dimension " << d
                         << " (warps * batch * outer * lanes * elems), the "
                            "tile has "
                         << (ShapedType::isDynamic(size) ? std::string("?")
                                                         : std::to_string(size));
  return success();
}

SmallVector<int64_t> DistLayoutAttr::getTileShape() const {
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < getRank(); ++d)
    shape.push_back(getWarps()[d] * getBatch()[d] * getOuter()[d] *
                    getLanes()[d] * getElems()[d]);
  return shape;
}

int64_t DistLayoutAttr::getNumRegisters() const {
  int64_t n = 1;
  for (int64_t d = 0; d < getRank(); ++d)
    n *= getBatch()[d] * getOuter()[d] * getElems()[d];
  return n;
}

int64_t DistLayoutAttr::getMinWarps() const {
  int64_t n = 1;
  for (int64_t d = 0; d < getRank(); ++d)
    if (getWarps()[d] > 1)
      n = std::max(n, getWarps()[d] * getWarpStrides()[d]);
  return n;
}

SmallVector<int64_t> DistLayoutAttr::getRegisterOffsets(int64_t reg) const {
  const int64_t rank = getRank();
  int64_t elemCount = 1, outerCount = 1;
  for (int64_t d = 0; d < rank; ++d) {
    elemCount *= getElems()[d];
    outerCount *= getOuter()[d];
  }
  SmallVector<int64_t> e = delinearize(reg % elemCount, getElems());
  SmallVector<int64_t> o =
      delinearize((reg / elemCount) % outerCount, getOuter());
  SmallVector<int64_t> b = delinearize(reg / (elemCount * outerCount),
                                       getBatch());
  SmallVector<int64_t> offsets;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t lanesElems = getLanes()[d] * getElems()[d];
    offsets.push_back((b[d] * getOuter()[d] + o[d]) * lanesElems + e[d]);
  }
  return offsets;
}

SmallVector<int64_t> DistLayoutAttr::getLaneOffsets(int64_t lane) const {
  SmallVector<int64_t> offsets;
  for (int64_t d = 0; d < getRank(); ++d) {
    int64_t l = (lane / getLaneStrides()[d]) % getLanes()[d];
    offsets.push_back(l * getElems()[d]);
  }
  return offsets;
}

SmallVector<int64_t> DistLayoutAttr::getWarpOffsets(int64_t warp) const {
  SmallVector<int64_t> offsets;
  for (int64_t d = 0; d < getRank(); ++d) {
    int64_t w = (warp / getWarpStrides()[d]) % getWarps()[d];
    offsets.push_back(w * getBatch()[d] * getOuter()[d] * getLanes()[d] *
                      getElems()[d]);
  }
  return offsets;
}

SmallVector<int64_t> DistLayoutAttr::getCoordinates(int64_t warp, int64_t lane,
                                                    int64_t reg) const {
  SmallVector<int64_t> c = getRegisterOffsets(reg);
  SmallVector<int64_t> l = getLaneOffsets(lane);
  SmallVector<int64_t> w = getWarpOffsets(warp);
  for (int64_t d = 0; d < getRank(); ++d)
    c[d] += l[d] + w[d];
  return c;
}

DistLayoutAttr DistLayoutAttr::getMmaAccumulator(MLIRContext *ctx, int64_t m,
                                                 int64_t n, int64_t warpsM,
                                                 int64_t warpsN) {
  return get(ctx, {warpsM, warpsN}, {m / (16 * warpsM), n / (8 * warpsN)},
             {2, 1}, {8, 4}, {1, 2}, {4, 1}, {1, warpsM});
}

DistLayoutAttr DistLayoutAttr::getMmaOperandA16(MLIRContext *ctx, int64_t m,
                                                int64_t k, int64_t warpsM) {
  return get(ctx, {warpsM, 1}, {m / (16 * warpsM), k / 16}, {2, 2}, {8, 4},
             {1, 2}, {4, 1}, {1, 1});
}

DistLayoutAttr DistLayoutAttr::getMmaOperandB16(MLIRContext *ctx, int64_t k,
                                                int64_t n, int64_t warpsN) {
  return get(ctx, {1, warpsN}, {k / 16, n / (8 * warpsN)}, {2, 1}, {4, 8},
             {2, 1}, {1, 4}, {1, 1});
}

DistLayoutAttr DistLayoutAttr::getMmaOperandA32(MLIRContext *ctx, int64_t m,
                                                int64_t k, int64_t warpsM) {
  return get(ctx, {warpsM, 1}, {m / (16 * warpsM), k / 8}, {2, 2}, {8, 4},
             {1, 1}, {4, 1}, {1, 1});
}

DistLayoutAttr DistLayoutAttr::getMmaOperandB32(MLIRContext *ctx, int64_t k,
                                                int64_t n, int64_t warpsN) {
  return get(ctx, {1, warpsN}, {k / 8, n / (8 * warpsN)}, {2, 1}, {4, 8},
             {1, 1}, {1, 4}, {1, 1});
}

DistLayoutAttr DistLayoutAttr::getMmaOperandA32KPacked(MLIRContext *ctx,
                                                       int64_t m, int64_t k,
                                                       int64_t warpsM) {
  return get(ctx, {warpsM, 1}, {m / (16 * warpsM), 1}, {2, 1}, {8, 4},
             {1, k / 4}, {4, 1}, {1, 1});
}

DistLayoutAttr DistLayoutAttr::getMmaOperandB32KPacked(MLIRContext *ctx,
                                                       int64_t k, int64_t n,
                                                       int64_t warpsN,
                                                       int64_t warpStride) {
  return get(ctx, {1, warpsN}, {1, n / (8 * warpsN)}, {1, 1}, {4, 8},
             {k / 4, 1}, {1, 4}, {1, warpStride});
}

DistLayoutAttr DistLayoutAttr::getSlice(int64_t dim) const {
  assert(getRank() > 1 && dim >= 0 && dim < getRank() &&
         "a slice drops one dimension of a layout of rank 2 or more");
  auto drop = [&](ArrayRef<int64_t> values) {
    SmallVector<int64_t> kept(values);
    kept.erase(kept.begin() + dim);
    return kept;
  };
  return get(getContext(), drop(getWarps()), drop(getBatch()),
             drop(getOuter()), drop(getLanes()), drop(getElems()),
             drop(getLaneStrides()), drop(getWarpStrides()));
}
