//===- TileOps.h - the tile DSL ops -----------------------------*- C++ -*-===//

#ifndef KDA_DIALECT_TILE_TILEOPS_H
#define KDA_DIALECT_TILE_TILEOPS_H

#include "kda/Dialect/Tile/TileDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "Tile/TileOps.h.inc"

namespace mlir::kda::tile {
/// Returns true if `op` is nested in a func.func marked `tile.kernel`.
bool isInsideKernel(Operation *op);
} // namespace mlir::kda::tile

#endif // KDA_DIALECT_TILE_TILEOPS_H
