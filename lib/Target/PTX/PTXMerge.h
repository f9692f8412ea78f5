//===- PTXMerge.h - join PTX modules into one -------------------*- C++ -*-===//
//
// The NVPTX back end prints one PTX module per gpu.module; a bundle and
// `kda-translate --kda-to-ptx` hold one PTX file for all of a program's
// kernels. This joins the modules.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_TARGET_PTX_PTXMERGE_H
#define KDA_TARGET_PTX_PTXMERGE_H

#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::kda {

/// Joins the PTX modules `modules` (each a whole PTX file as the NVPTX back
/// end prints it) into one: the first module's header (comments, `.version`,
/// `.target`, `.address_size`) once, each module-scope declaration once (in
/// the order first seen), then every module's functions in order. Fails,
/// with `error` set, when a module has no header, when the headers differ,
/// or when two modules declare one symbol differently.
FailureOr<std::string> mergePTXModules(ArrayRef<std::string> modules,
                                       std::string &error);

} // namespace mlir::kda

#endif // KDA_TARGET_PTX_PTXMERGE_H
