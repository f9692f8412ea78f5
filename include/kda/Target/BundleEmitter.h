//===- BundleEmitter.h - compile a kda module to a kernel bundle -*- C++ -*-===//
//
// A bundle (docs/bundle-format.md) holds the PTX of a program, optionally its
// cubin and its CPU build, and a manifest telling the runtime how to launch
// it: arguments, workspaces, and per kernel the grid, block and parameters.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_TARGET_BUNDLEEMITTER_H
#define KDA_TARGET_BUNDLEEMITTER_H

#include "kda/Target/PTXEmitter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::kda {

/// The ABI version written in bundles (docs/bundle-format.md).
constexpr int kBundleABIVersion = 1;

/// Options of bundle emission.
struct BundleEmitterOptions {
  PTXEmitterOptions ptx;
  /// Assemble the PTX with ptxas into a cubin section, when ptxas is found.
  bool cubin = true;
  /// Build the CPU version into a shared-object section, when a C compiler
  /// driver is found to link it.
  bool cpu = true;
};

/// Compiles `module` (a kda program with exactly one kda function) to a
/// bundle written to `os`. `module` is not modified. Emits diagnostics and
/// returns failure on any error; missing optional tools (ptxas, a C
/// compiler driver) only drop the optional sections, with a warning.
LogicalResult emitBundle(ModuleOp module, const BundleEmitterOptions &options,
                         llvm::raw_ostream &os);

} // namespace mlir::kda

#endif // KDA_TARGET_BUNDLEEMITTER_H
