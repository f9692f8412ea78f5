//===- KDADialect.cpp - KDA problem-level dialect -------------------------===//

#include "kda/Dialect/KDA/KDADialect.h"
#include "kda/Dialect/KDA/KDAOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::kda;

#include "KDA/KDADialect.cpp.inc"
#include "KDA/KDAEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "KDA/KDAAttrs.cpp.inc"

void KDADialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "KDA/KDAAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "KDA/KDAOps.cpp.inc"
      >();
}
