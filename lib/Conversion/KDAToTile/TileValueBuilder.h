//===- TileValueBuilder.h - tile-value helpers of stage kernels -*- C++ -*-===//
//
// Small helpers that build tile values (splats, elementwise math, dots,
// casts, broadcasts, masks, loads and stores) for the stage kernels.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_LIB_CONVERSION_KDATOTILE_TILEVALUEBUILDER_H
#define KDA_LIB_CONVERSION_KDATOTILE_TILEVALUEBUILDER_H

#include "kda/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::kda {

/// Builds tile values at a fixed location.
struct TileValueBuilder {
  OpBuilder &b;
  Location loc;

  Type f32() { return b.getF32Type(); }
  RankedTensorType tileOf(ArrayRef<int64_t> shape, Type element) {
    return RankedTensorType::get(shape, element);
  }
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// A float tile of `type` holding the constant `v`.
  Value splat(RankedTensorType type, double v) {
    Value scalar = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(type.getElementType(), v));
    return tile::SplatOp::create(b, loc, type, scalar);
  }
  /// An f32 tile of `shape` of zeros.
  Value zeros(ArrayRef<int64_t> shape) {
    return splat(tileOf(shape, f32()), 0.0);
  }

  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value exp2(Value x) { return math::Exp2Op::create(b, loc, x); }
  /// s * sigmoid(x) of the f32 tile `x`: s / (1 + exp(-x)), or with
  /// `approximate` s / (1 + 2^(-x log2(e))), the exponential as an exp2 (one
  /// ex2.approx.ftz on the GPU, convert-gpu-exp2-to-intrinsic) and the
  /// division with the `afn` fast-math flag (an approximate reciprocal and a
  /// multiply instead of an IEEE division), both within a few ulp of f32.
  /// The ends stay exact either way: the exponential overflows to inf for x
  /// below about -88 (s / inf = 0) and flushes to 0 above about 87 (s / 1).
  Value sigmoid(Value x, double s, bool approximate) {
    auto type = cast<RankedTensorType>(x.getType());
    if (!approximate) {
      Value denom = add(splat(type, 1.0), math::ExpOp::create(b, loc, neg(x)));
      return arith::DivFOp::create(b, loc, splat(type, s), denom);
    }
    constexpr double kLog2E = 1.4426950408889634;
    Value power = exp2(mul(x, splat(type, -kLog2E)));
    Value denom = add(splat(type, 1.0), power);
    return arith::DivFOp::create(b, loc, splat(type, s), denom,
                                 arith::FastMathFlags::afn);
  }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value select(Value mask, Value x, Value y) {
    return arith::SelectOp::create(b, loc, mask, x, y);
  }
  /// x where `mask`, else 0 (f32 tiles).
  Value keep(Value mask, Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    return select(mask, x, zeros(type.getShape()));
  }

  /// acc + x * y at `precision` (f32 accumulator).
  Value dot(Value x, Value y, Value acc, tile::Precision precision) {
    return tile::DotOp::create(b, loc, acc.getType(), x, y, acc, precision);
  }
  /// x * y at `precision`, from a zero accumulator.
  Value dot(Value x, Value y, tile::Precision precision) {
    auto xType = cast<RankedTensorType>(x.getType());
    auto yType = cast<RankedTensorType>(y.getType());
    return dot(x, y, zeros({xType.getDimSize(0), yType.getDimSize(1)}),
               precision);
  }
  /// The f32 sum of the tile `x` along `dim` (the result drops `dim`).
  Value sum(Value x, int64_t dim) {
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + dim);
    return tile::ReduceOp::create(b, loc, tileOf(shape, f32()), x,
                                  tile::CombineKind::add, dim);
  }
  /// The transpose of the 2-D tile `x`.
  Value trans(Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    return tile::TransOp::create(
        b, loc,
        tileOf({type.getDimSize(1), type.getDimSize(0)}, type.getElementType()),
        x, nullptr);
  }
  /// Repeats the tile `v` along the new dimension `dim` of a tile of
  /// `shape` (one rank more): for a 1-D `v`, dim 0 gives r[i, j] = v[j] and
  /// dim 1 gives r[i, j] = v[i].
  Value broadcast(Value v, int64_t dim, ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(v.getType());
    return tile::BroadcastOp::create(b, loc,
                                     tileOf(shape, type.getElementType()), v,
                                     b.getDenseI64ArrayAttr({dim}));
  }

  /// Extends a float tile to f32 (no-op for f32).
  Value toF32(Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getElementType().isF32())
      return x;
    return arith::ExtFOp::create(b, loc, tileOf(type.getShape(), f32()), x);
  }
  /// Truncates an f32 tile to `element` (no-op for f32).
  Value toElement(Value x, Type element) {
    auto type = cast<RankedTensorType>(x.getType());
    if (element.isF32())
      return x;
    return arith::TruncFOp::create(b, loc, tileOf(type.getShape(), element), x);
  }
  /// The f32 tile `x` rounded to `element` and back to f32: an I/O-dtype
  /// rounding point of fla's kernels (no-op for f32).
  Value roundTo(Value x, Type element) {
    return toF32(toElement(x, element));
  }

  /// i1 tile of `shape`: true where the index along `dim` is < `bound`
  /// (`pred` slt) or == `bound` (`pred` eq), for an index scalar `bound`.
  Value indexMask(ArrayRef<int64_t> shape, int64_t dim, Value bound,
                  arith::CmpIPredicate pred) {
    Type i32 = b.getI32Type();
    Value iota = tile::IotaOp::create(b, loc, tileOf(shape, i32), dim);
    Value scalar = arith::IndexCastOp::create(b, loc, i32, bound);
    Value limit = tile::SplatOp::create(b, loc, tileOf(shape, i32), scalar);
    return arith::CmpIOp::create(b, loc, pred, iota, limit);
  }
  /// i1 tile of shape [n, n]: tril with the given diagonal offset (0 keeps
  /// i >= j, -1 keeps i > j).
  Value lowerMask(int64_t n, int64_t diagonal) {
    return tile::TriMaskOp::create(b, loc, tileOf({n, n}, b.getI1Type()),
                                   /*upper=*/false, diagonal);
  }
  /// i1 tile of shape [n, n], true on the diagonal.
  Value identityMask(int64_t n) {
    Type i32 = b.getI32Type();
    Value rows = tile::IotaOp::create(b, loc, tileOf({n, n}, i32), 0);
    Value cols = tile::IotaOp::create(b, loc, tileOf({n, n}, i32), 1);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rows, cols);
  }

  /// (I + L)^-1 for each square f32 tile of `matrices`, L its strictly
  /// lower part (entries on and above the diagonal are not read), all in
  /// one tile.unit_lower_inverse.
  SmallVector<Value> unitLowerInverse(ValueRange matrices) {
    SmallVector<Value> inits;
    for (Value matrix : matrices) {
      auto type = cast<RankedTensorType>(matrix.getType());
      inits.push_back(tensor::EmptyOp::create(b, loc, type.getShape(),
                                              type.getElementType()));
    }
    auto op = tile::UnitLowerInverseOp::create(b, loc, matrices.getTypes(),
                                               matrices, inits);
    return SmallVector<Value>(op.getResults());
  }

  /// The tile of `type` at `indices` of `source`, tile dimension j along
  /// memref dimension dims[j], elements at or past `bounds` read as 0.
  Value load(RankedTensorType type, Value source, ValueRange indices,
             ValueRange bounds, ArrayRef<int64_t> dims) {
    return tile::LoadOp::create(b, loc, type, source, indices, bounds,
                                b.getDenseI64ArrayAttr(dims), nullptr);
  }
  /// Stores `value` at `indices` of `dest`, elements at or past `bounds`
  /// dropped.
  void store(Value value, Value dest, ValueRange indices, ValueRange bounds,
             ArrayRef<int64_t> dims) {
    tile::StoreOp::create(b, loc, value, dest, indices, bounds,
                          b.getDenseI64ArrayAttr(dims));
  }

  /// Index arithmetic.
  Value addIndex(Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y);
  }
  Value subIndex(Value x, Value y) {
    return arith::SubIOp::create(b, loc, x, y);
  }
  Value minIndex(Value x, Value y) {
    return arith::MinSIOp::create(b, loc, x, y);
  }
};

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_KDATOTILE_TILEVALUEBUILDER_H
