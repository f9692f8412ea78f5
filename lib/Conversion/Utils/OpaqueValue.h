//===- OpaqueValue.h - values LLVM cannot see through -----------*- C++ -*-===//

#ifndef KDA_LIB_CONVERSION_UTILS_OPAQUEVALUE_H
#define KDA_LIB_CONVERSION_UTILS_OPAQUEVALUE_H

#include "mlir/IR/Builders.h"

namespace mlir::kda {

/// `value` (i64) passed through an inline PTX `mov` that also takes `ties`
/// (ignored by the `mov`), so that LLVM neither sees through it nor treats
/// it as invariant where one of `ties` varies. Address arithmetic built on
/// such a value is not reassociated and hoisted out of loops (one register
/// pair per hoisted address), but recomputed where it is used.
Value createOpaqueI64(OpBuilder &b, Location loc, Value value,
                      ValueRange ties = {});

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_UTILS_OPAQUEVALUE_H
