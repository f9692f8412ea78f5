//===- Program.h - a loaded bundle, ready to launch --------------*- C++ -*-===//
//
// A Program is a parsed bundle plus, per CUDA context, its loaded module.
// Modules are loaded lazily on the first launch (or prepare()) in a context.
// All methods are const and safe to call from several threads at once.
//
// Every launch validates all of its arguments (count, dtypes, shapes against
// the manifest's static dims and symbols, strides, null and misaligned
// pointers, cu_seqlens, HV % H, workspace size) and evaluates the whole plan
// (grids, parameters) before it touches the driver; a rejected launch calls
// no driver function and writes nothing. The launch itself goes on the
// caller's stream and allocates nothing, so it can be captured in a CUDA
// graph (call prepare() before capturing).
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUNTIME_PROGRAM_H
#define KDA_RUNTIME_PROGRAM_H

#include "kda/Runtime/Bundle.h"
#include "kda/Runtime/Driver.h"
#include "kda/Runtime/Status.h"
#include "kda/Runtime/Types.h"

#include <memory>
#include <string>
#include <string_view>

namespace kda::rt {

/// How a Program finds the driver and the device.
struct ProgramOptions {
  /// Driver library; empty means Driver::defaultPath() ($KDA_CUDA_DRIVER or
  /// libcuda.so.1), read when the driver is first needed.
  std::string driverPath;
  /// Device whose primary context is used (and made current) when a launch
  /// finds no current context on the calling thread.
  int device = 0;
  /// Load the PTX even when the bundle has a cubin for the device
  /// ($KDA_RUNTIME_FORCE_PTX=1 does the same).
  bool forcePtx = false;
  /// Refuse to load the bundle's CPU build (native code, run by dlopen):
  /// runCpu then fails with ErrorCode::Unsupported ($KDA_RUNTIME_NO_CPU=1
  /// does the same).
  bool refuseCpu = false;
};

/// What validation found: symbol values, workspace layout and grids.
struct Plan {
  /// Value of each manifest symbol.
  int64_t symbols[kMaxSymbols] = {};
  /// Byte offset of each workspace in the caller's workspace.
  int64_t workspaceOffsets[kMaxWorkspaces] = {};
  /// Total workspace bytes (each workspace rounded up to 256 bytes).
  int64_t workspaceBytes = 0;
  /// Grid of each kernel.
  int64_t grids[kMaxKernels][3] = {};
};

class Program {
public:
  /// Loads a bundle file.
  static Status load(const std::string &path, std::unique_ptr<Program> &out,
                     const ProgramOptions &options = {});
  /// Loads a bundle from memory (the bytes are copied).
  static Status fromMemory(const void *data, size_t size,
                           std::unique_ptr<Program> &out,
                           const ProgramOptions &options = {});
  /// Wraps an already parsed bundle.
  static Status fromBundle(Bundle bundle, std::unique_ptr<Program> &out,
                           const ProgramOptions &options = {});
  ~Program();
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  const Bundle &bundle() const;
  const Manifest &manifest() const { return bundle().manifest; }
  const ProgramOptions &options() const;
  /// Index of the argument named `name`, or -1.
  int argIndex(std::string_view name) const {
    return manifest().argIndex(name);
  }

  /// Validates shapes and dtypes only (pointers may be null) and returns the
  /// workspace bytes a launch with these shapes needs (0 when none).
  Status workspaceSize(const TensorArg *tensors, size_t numTensors,
                       size_t &bytes) const;

  /// Validates a launch without touching the driver and fills `plan`.
  Status validate(const LaunchArgs &args, Plan &plan) const;

  /// The driver this program uses (opened on first use).
  Status driver(const Driver *&out) const;

  /// Loads the module into the current context (or the primary context of
  /// options().device, made current), so that a later launch does no
  /// loading. JIT errors carry the driver's log.
  Status prepare() const;

  /// Validates, then launches every kernel of the plan on `stream` (a
  /// CUstream or cudaStream_t of the current context; null is the legacy
  /// default stream). Kernels whose grid has a zero extent are skipped.
  Status launch(const LaunchArgs &args, void *stream) const;

  /// Like launch(), but launches only the kernels [first, first + count) of
  /// the manifest (clamped to its kernel count), e.g. to time one kernel of a
  /// forward whose earlier kernels have already filled the workspace.
  Status launchKernels(const LaunchArgs &args, void *stream, size_t first,
                       size_t count) const;

  /// Runs the bundle's cpu section on host tensors (same validation; the
  /// workspace is not used). Unsupported when the bundle has none.
  Status runCpu(const LaunchArgs &args) const;

  struct Impl;

private:
  explicit Program(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace kda::rt

#endif // KDA_RUNTIME_PROGRAM_H
