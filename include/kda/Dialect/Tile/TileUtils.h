//===- TileUtils.h - helpers shared by the tile lowerings -------*- C++ -*-===//

#ifndef KDA_DIALECT_TILE_TILEUTILS_H
#define KDA_DIALECT_TILE_TILEUTILS_H

#include "kda/Dialect/Tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"

namespace mlir::kda::tile {

/// Emits `lhs kind rhs` on scalars (float or integer; max and min are the
/// NaN-propagating float forms and the signed integer forms).
Value emitCombine(OpBuilder &b, Location loc, CombineKind kind, Value lhs,
                  Value rhs);

/// The neutral element of `kind` for scalars of `type`: 0 for add, -inf /
/// +inf (floats) or the smallest / largest signed value for max / min.
TypedAttr getCombineIdentity(Builder &b, CombineKind kind, Type type);

} // namespace mlir::kda::tile

#endif // KDA_DIALECT_TILE_TILEUTILS_H
