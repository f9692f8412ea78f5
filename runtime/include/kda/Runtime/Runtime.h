//===- Runtime.h - umbrella header of the kda runtime ------------*- C++ -*-===//
//
// libkda_runtime (namespace kda::rt): loads kernel bundles written by
// `kda-translate --kda-to-bundle` and launches them through the CUDA driver.
// See docs/runtime.md; the C API is kda_runtime.h.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUNTIME_RUNTIME_H
#define KDA_RUNTIME_RUNTIME_H

#include "kda/Runtime/Bundle.h"
#include "kda/Runtime/Driver.h"
#include "kda/Runtime/Expr.h"
#include "kda/Runtime/Program.h"
#include "kda/Runtime/Status.h"
#include "kda/Runtime/Types.h"

#endif // KDA_RUNTIME_RUNTIME_H
