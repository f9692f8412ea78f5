//===- InitAllKDA.h - register everything the kda tools need ----*- C++ -*-===//

#ifndef KDA_INITALLKDA_H
#define KDA_INITALLKDA_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::kda {

/// Registers the kda and tile dialects plus every upstream dialect,
/// extension and LLVM-IR translation interface the pipelines use.
void registerAllKDADialects(DialectRegistry &registry);

/// Registers the kda passes and pipelines (and all upstream passes).
void registerAllKDAPasses();

} // namespace mlir::kda

#endif // KDA_INITALLKDA_H
