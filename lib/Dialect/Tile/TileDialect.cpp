//===- TileDialect.cpp - the tile DSL -------------------------------------===//

#include "kda/Dialect/Tile/TileDialect.h"
#include "kda/Dialect/Tile/TileOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::kda::tile;

#include "Tile/TileDialect.cpp.inc"
#include "Tile/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Tile/TileAttrs.cpp.inc"

void TileDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Tile/TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "Tile/TileOps.cpp.inc"
      >();
}
