//===- KDADialect.h - KDA problem-level dialect -----------------*- C++ -*-===//

#ifndef KDA_DIALECT_KDA_KDADIALECT_H
#define KDA_DIALECT_KDA_KDADIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "KDA/KDADialect.h.inc"
#include "KDA/KDAEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "KDA/KDAAttrs.h.inc"

#endif // KDA_DIALECT_KDA_KDADIALECT_H
