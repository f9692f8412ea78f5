//===- Internal.h - shared internals of the kda runtime ----------*- C++ -*-===//

#ifndef KDA_RUNTIME_LIB_INTERNAL_H
#define KDA_RUNTIME_LIB_INTERNAL_H

#include "kda/Runtime/Program.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kda::rt {

/// Sets the calling thread's kda_last_error() message.
void setLastError(const std::string &message);

namespace detail {

/// How much of a launch to validate.
enum class CheckLevel {
  /// Count, dtypes, shapes, strides, symbols, HV % H, workspace sizes, plan.
  Shapes,
  /// Everything: also pointers, the cu_seqlens host copy and the workspace.
  Full,
};

/// Validates `args` against `manifest` and fills `plan` (no driver call).
Status validateLaunch(const Manifest &manifest, const LaunchArgs &args,
                      CheckLevel level, Plan &plan);

/// Writes the memref descriptor words of a dense tensor (allocated and
/// aligned pointer, offset 0, sizes, row-major strides) to `out`; returns
/// the number of words (3 + 2 * rank).
int writeDescriptor(uint64_t address, const int64_t *dims, int rank,
                    uint64_t *out);

} // namespace detail

/// One loaded module: a CUDA context and the functions of every kernel.
struct LoadedModule {
  cu::CUcontext context = nullptr;
  cu::CUmodule module = nullptr;
  std::vector<cu::CUfunction> functions;
};

struct Program::Impl {
  Bundle bundle;
  ProgramOptions options;

  /// Guards driver, modules and the CPU build.
  std::mutex mutex;
  const Driver *driver = nullptr;
  std::vector<std::unique_ptr<LoadedModule>> modules;

  /// The CPU build, dlopen-ed on first use.
  void *cpuLibrary = nullptr;
  void *cpuEntry = nullptr;

  Status getDriver(const Driver *&out);
  /// The module of the current context (loading it on first use).
  Status getModule(const Driver &driver, const LoadedModule *&out);
  Status loadModule(const Driver &driver, cu::CUcontext context,
                    std::unique_ptr<LoadedModule> &out);
  Status getCpuEntry(void *&entry);
};

} // namespace kda::rt

#endif // KDA_RUNTIME_LIB_INTERNAL_H
