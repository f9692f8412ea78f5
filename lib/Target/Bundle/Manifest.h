//===- Manifest.h - the launch-plan manifest of a bundle --------*- C++ -*-===//

#ifndef KDA_LIB_TARGET_BUNDLE_MANIFEST_H
#define KDA_LIB_TARGET_BUNDLE_MANIFEST_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::kda {

/// Writes the manifest (docs/bundle-format.md) of the host entry `entry`, a
/// function produced by the PTX pipeline whose body computes grid sizes and
/// launches kernels with gpu.launch_func. Fails with a diagnostic on
/// anything the manifest cannot express.
FailureOr<std::string> buildManifest(func::FuncOp entry, StringRef chip);

} // namespace mlir::kda

#endif // KDA_LIB_TARGET_BUNDLE_MANIFEST_H
