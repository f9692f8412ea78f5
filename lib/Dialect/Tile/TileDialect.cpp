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

/// The dialect's attributes on other ops: `tile.tuning` (a #tile.tuning)
/// and `tile.partition` (a string, on tile.launch).
LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == getTuningAttrName() &&
      !isa<TuningAttr>(attr.getValue()))
    return op->emitError() << "'" << getTuningAttrName()
                           << "' must be a #tile.tuning attribute, got "
                           << attr.getValue();
  if (attr.getName() == getPartitionAttrName()) {
    if (!isa<LaunchOp>(op))
      return op->emitError() << "'" << getPartitionAttrName()
                             << "' is an attribute of tile.launch";
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << getPartitionAttrName()
                             << "' must be a string, got " << attr.getValue();
  }
  return success();
}
