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
