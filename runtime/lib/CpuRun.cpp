//===- CpuRun.cpp - running the bundle's CPU build ------------------------===//
//
// The `cpu` section is an ELF shared object exporting _mlir_ciface_<entry>,
// which takes one pointer per entry argument, each to a memref descriptor
// {allocated, aligned, offset, sizes[rank], strides[rank]} of host memory.
// It is written to a temporary file, dlopen-ed once and unlinked.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <unistd.h>
#include <array>
#include <utility>

namespace kda::rt {

namespace {

using Caller = void (*)(void *function, void **arguments);

template <size_t I> using VoidPtr = void *;

/// Calls `function` with N pointer arguments.
template <size_t... I>
void callWith(void *function, void **arguments, std::index_sequence<I...>) {
  using F = void (*)(VoidPtr<I>...);
  F f;
  static_assert(sizeof f == sizeof function, "function pointer size");
  std::memcpy(&f, &function, sizeof f);
  f(arguments[I]...);
}

template <size_t N> void callN(void *function, void **arguments) {
  callWith(function, arguments, std::make_index_sequence<N>());
}

template <size_t... N>
constexpr std::array<Caller, sizeof...(N)> makeCallers(std::index_sequence<N...>) {
  return {&callN<N>...};
}

const auto kCallers = makeCallers(std::make_index_sequence<kMaxArgs + 1>());

Status cpuError(const std::string &message) {
  return Status::error(ErrorCode::InvalidBundle,
                       "the bundle's cpu section: " + message);
}

} // namespace

Status Program::Impl::getCpuEntry(void *&entry) {
  std::lock_guard<std::mutex> lock(mutex);
  if (cpuEntry) {
    entry = cpuEntry;
    return Status::ok();
  }
  if (options.refuseCpu)
    return Status::error(ErrorCode::Unsupported,
                         "CPU builds are refused here (ProgramOptions::"
                         "refuseCpu, KDA_LOAD_REFUSE_CPU or "
                         "KDA_RUNTIME_NO_CPU=1): the bundle's "
                         "cpu section is native code and is not loaded");
  if (!bundle.hasCpu)
    return Status::error(ErrorCode::Unsupported,
                         "the bundle has no cpu section (it was compiled "
                         "without a C compiler to link the CPU build)");
  const char *tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") +
                     "/kda-cpu-XXXXXX.so";
  int fd = mkstemps(path.data(), 3);
  if (fd < 0)
    return Status::error(ErrorCode::IoError,
                         "cannot create a temporary file for the cpu "
                         "section: " +
                             std::string(std::strerror(errno)));
  const char *p = bundle.cpu.data();
  size_t left = bundle.cpu.size();
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int err = errno;
      close(fd);
      unlink(path.c_str());
      return Status::error(ErrorCode::IoError,
                           "cannot write '" + path +
                               "': " + std::strerror(err));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  close(fd);
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  const char *why = library ? nullptr : dlerror();
  unlink(path.c_str());
  if (!library)
    return cpuError(std::string("cannot load it: ") +
                    (why ? why : "unknown error"));
  std::string symbol = "_mlir_ciface_" + bundle.manifest.entry;
  void *f = dlsym(library, symbol.c_str());
  if (!f) {
    dlclose(library);
    return cpuError("it does not export " + symbol);
  }
  cpuLibrary = library;
  cpuEntry = f;
  entry = f;
  return Status::ok();
}

Status Program::runCpu(const LaunchArgs &args) const {
  const Manifest &m = manifest();
  Plan plan;
  if (Status s = detail::validateLaunch(m, args, detail::CheckLevel::Full,
                                        plan);
      !s)
    return s;
  void *entry = nullptr;
  if (Status s = impl->getCpuEntry(entry); !s)
    return s;
  uint64_t descriptors[kMaxArgs][3 + 2 * kMaxRank];
  void *pointers[kMaxArgs];
  for (size_t i = 0; i < m.args.size(); ++i) {
    const TensorArg &t = args.tensors[i];
    detail::writeDescriptor(reinterpret_cast<uintptr_t>(t.data), t.dims,
                            t.rank, descriptors[i]);
    pointers[i] = descriptors[i];
  }
  kCallers[m.args.size()](entry, pointers);
  return Status::ok();
}

} // namespace kda::rt
