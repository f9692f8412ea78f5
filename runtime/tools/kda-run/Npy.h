//===- Npy.h - minimal .npy reader and writer --------------------*- C++ -*-===//
//
// NumPy's .npy format, versions 1.0 to 3.0, little-endian C-order arrays of
// f2, f4, f8, i4, i8 (and u1/i1/i2/u2 on read).
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUN_NPY_H
#define KDA_RUN_NPY_H

#include "HostTensor.h"

#include <string>

namespace kda::run {

/// Reads `path` into `out`, converting every element to out's dtype (which
/// the caller set, along with the expected shape). Fails with a one-line
/// reason when the file is unreadable, malformed, Fortran-ordered, of
/// another shape, or of an unsupported dtype.
bool readNpy(const std::string &path, HostTensor &out, std::string &error);

/// Writes `t` to `path`: f32 as <f4, f16 as <f2, bf16 widened to <f4 (exact),
/// i32 as <i4, i64 as <i8.
bool writeNpy(const std::string &path, const HostTensor &t,
              std::string &error);

} // namespace kda::run

#endif // KDA_RUN_NPY_H
