//===- TileUtils.cpp - helpers shared by the tile lowerings ---------------===//

#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

Value kda::tile::emitCombine(OpBuilder &b, Location loc, CombineKind kind,
                             Value lhs, Value rhs) {
  bool isFloat = isa<FloatType>(lhs.getType());
  switch (kind) {
  case CombineKind::add:
    return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
  case CombineKind::max:
    return isFloat ? arith::MaximumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MaxSIOp::create(b, loc, lhs, rhs).getResult();
  case CombineKind::min:
    return isFloat ? arith::MinimumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MinSIOp::create(b, loc, lhs, rhs).getResult();
  }
  llvm_unreachable("unknown combine kind");
}

TypedAttr kda::tile::getCombineIdentity(Builder &b, CombineKind kind, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    switch (kind) {
    case CombineKind::add:
      return b.getFloatAttr(type, 0.0);
    case CombineKind::max:
      return b.getFloatAttr(type, APFloat::getInf(sem, /*Negative=*/true));
    case CombineKind::min:
      return b.getFloatAttr(type, APFloat::getInf(sem, /*Negative=*/false));
    }
  }
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  switch (kind) {
  case CombineKind::add:
    return b.getIntegerAttr(type, 0);
  case CombineKind::max:
    return b.getIntegerAttr(type, APInt::getSignedMinValue(width));
  case CombineKind::min:
    return b.getIntegerAttr(type, APInt::getSignedMaxValue(width));
  }
  llvm_unreachable("unknown combine kind");
}
