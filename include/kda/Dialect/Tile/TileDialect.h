//===- TileDialect.h - the tile DSL -----------------------------*- C++ -*-===//

#ifndef KDA_DIALECT_TILE_TILEDIALECT_H
#define KDA_DIALECT_TILE_TILEDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/TensorEncoding.h"

#include "Tile/TileDialect.h.inc"
#include "Tile/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Tile/TileAttrs.h.inc"

#endif // KDA_DIALECT_TILE_TILEDIALECT_H
