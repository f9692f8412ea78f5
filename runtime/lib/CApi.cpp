//===- CApi.cpp - the C API of the kda runtime ----------------------------===//
//
// Thin wrappers over kda::rt::Program. No exception crosses the API: every
// entry point catches them and reports KDA_ERROR_INTERNAL.
//
//===----------------------------------------------------------------------===//

#include "kda_runtime.h"

#include "Internal.h"
#include "kda/Runtime/Program.h"

#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

using namespace kda::rt;

struct kda_program {
  std::unique_ptr<Program> program;
};

namespace {

thread_local std::string lastError;

kda_status report(const Status &s) {
  if (s) {
    lastError.clear();
    return KDA_OK;
  }
  lastError = s.message();
  return static_cast<kda_status>(s.code());
}

kda_status reportInternal(const char *what) {
  lastError = std::string("internal error: ") + what;
  return KDA_ERROR_INTERNAL;
}

kda_status invalidArgument(const char *message) {
  lastError = message;
  return KDA_ERROR_INVALID_ARGUMENT;
}

/// Converts C tensors to TensorArgs (a fixed array: no allocation).
bool convertTensors(const kda_tensor *in, size_t n, TensorArg *out,
                    const char *&why) {
  if (n > static_cast<size_t>(kMaxArgs)) {
    why = "too many tensors";
    return false;
  }
  if (n && !in) {
    why = "null tensors array";
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    const kda_tensor &t = in[i];
    if (t.dtype < KDA_F32 || t.dtype > KDA_I64) {
      why = "a tensor has an unknown dtype";
      return false;
    }
    out[i].data = t.data;
    out[i].dtype = static_cast<DType>(t.dtype);
    out[i].rank = t.rank;
    for (int d = 0; d < kMaxRank; ++d)
      out[i].dims[d] = t.dims[d];
    out[i].strides = t.strides;
  }
  return true;
}

/// ProgramOptions of KDA_LOAD_* flags; false for an unknown flag.
bool loadOptions(unsigned flags, ProgramOptions &options) {
  if (flags & ~(KDA_LOAD_REFUSE_CPU | KDA_LOAD_FORCE_PTX))
    return false;
  options.refuseCpu = (flags & KDA_LOAD_REFUSE_CPU) != 0;
  options.forcePtx = (flags & KDA_LOAD_FORCE_PTX) != 0;
  return true;
}

std::string hexFlags(unsigned flags) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "0x%x", flags);
  return buffer;
}

template <typename F> kda_status guarded(F f) {
  try {
    return f();
  } catch (const std::bad_alloc &) {
    return reportInternal("out of host memory");
  } catch (const std::exception &e) {
    return reportInternal(e.what());
  } catch (...) {
    return reportInternal("unknown exception");
  }
}

kda_status withLaunchArgs(const kda_program *program,
                          const kda_launch_args *args,
                          kda_status (*body)(const Program &,
                                             const LaunchArgs &, void *),
                          void *extra) {
  if (!program || !program->program)
    return invalidArgument("null program");
  if (!args)
    return invalidArgument("null launch arguments");
  TensorArg tensors[kMaxArgs];
  const char *why = nullptr;
  if (!convertTensors(args->tensors, args->num_tensors, tensors, why))
    return invalidArgument(why);
  LaunchArgs la;
  la.tensors = tensors;
  la.numTensors = args->num_tensors;
  la.cuSeqlensHost = args->cu_seqlens_host;
  la.numCuSeqlensHost = args->num_cu_seqlens_host;
  la.workspace = args->workspace;
  la.workspaceBytes = args->workspace_bytes;
  return body(*program->program, la, extra);
}

} // namespace

void kda::rt::setLastError(const std::string &message) { lastError = message; }

extern "C" {

const char *kda_last_error(void) { return lastError.c_str(); }

const char *kda_status_name(kda_status status) {
  if (status < KDA_OK || status > KDA_ERROR_INTERNAL)
    return "unknown status";
  return errorCodeName(static_cast<ErrorCode>(status));
}

kda_status kda_program_load(const char *path, kda_program **out) {
  return kda_program_load_flags(path, 0, out);
}

kda_status kda_program_load_memory(const void *data, size_t size,
                                   kda_program **out) {
  return kda_program_load_memory_flags(data, size, 0, out);
}

kda_status kda_program_load_flags(const char *path, unsigned flags,
                                  kda_program **out) {
  return guarded([&] {
    if (!path || !out)
      return invalidArgument("null path or output pointer");
    *out = nullptr;
    ProgramOptions options;
    if (!loadOptions(flags, options))
      return invalidArgument(("unknown load flags " + hexFlags(flags)).c_str());
    auto p = std::make_unique<kda_program>();
    if (kda_status s = report(Program::load(path, p->program, options));
        s != KDA_OK)
      return s;
    *out = p.release();
    return KDA_OK;
  });
}

kda_status kda_program_load_memory_flags(const void *data, size_t size,
                                         unsigned flags, kda_program **out) {
  return guarded([&] {
    if (!out)
      return invalidArgument("null output pointer");
    *out = nullptr;
    ProgramOptions options;
    if (!loadOptions(flags, options))
      return invalidArgument(("unknown load flags " + hexFlags(flags)).c_str());
    auto p = std::make_unique<kda_program>();
    if (kda_status s =
            report(Program::fromMemory(data, size, p->program, options));
        s != KDA_OK)
      return s;
    *out = p.release();
    return KDA_OK;
  });
}

void kda_program_destroy(kda_program *program) {
  try {
    delete program;
  } catch (...) {
  }
}

const char *kda_program_entry(const kda_program *program) {
  if (!program || !program->program)
    return nullptr;
  return program->program->manifest().entry.c_str();
}

const char *kda_program_key(const kda_program *program, const char *name) {
  if (!program || !program->program || !name)
    return nullptr;
  const std::string *v = program->program->manifest().key(name);
  return v ? v->c_str() : nullptr;
}

int kda_program_num_args(const kda_program *program) {
  if (!program || !program->program)
    return 0;
  return static_cast<int>(program->program->manifest().args.size());
}

int kda_program_num_inputs(const kda_program *program) {
  if (!program || !program->program)
    return 0;
  return program->program->manifest().numInputs;
}

const char *kda_program_arg_name(const kda_program *program, int index) {
  if (index < 0 || index >= kda_program_num_args(program))
    return nullptr;
  return program->program->manifest().args[index].name.c_str();
}

int kda_program_arg_index(const kda_program *program, const char *name) {
  if (!program || !program->program || !name)
    return -1;
  return program->program->argIndex(name);
}

kda_status kda_program_arg_info(const kda_program *program, int index,
                                int32_t *dtype, int32_t *rank) {
  if (index < 0 || index >= kda_program_num_args(program))
    return invalidArgument("no such argument");
  const ArgSpec &a = program->program->manifest().args[index];
  if (dtype)
    *dtype = static_cast<int32_t>(a.dtype);
  if (rank)
    *rank = a.rank();
  lastError.clear();
  return KDA_OK;
}

kda_status kda_program_workspace_size(const kda_program *program,
                                      const kda_tensor *tensors,
                                      size_t num_tensors, size_t *bytes) {
  return guarded([&] {
    if (!program || !program->program || !bytes)
      return invalidArgument("null program or output pointer");
    TensorArg converted[kMaxArgs];
    const char *why = nullptr;
    if (!convertTensors(tensors, num_tensors, converted, why))
      return invalidArgument(why);
    return report(
        program->program->workspaceSize(converted, num_tensors, *bytes));
  });
}

kda_status kda_program_prepare(const kda_program *program) {
  return guarded([&] {
    if (!program || !program->program)
      return invalidArgument("null program");
    return report(program->program->prepare());
  });
}

kda_status kda_program_launch(const kda_program *program,
                              const kda_launch_args *args, void *stream) {
  return guarded([&] {
    return withLaunchArgs(
        program, args,
        [](const Program &p, const LaunchArgs &la, void *s) {
          return report(p.launch(la, s));
        },
        stream);
  });
}

kda_status kda_program_run_cpu(const kda_program *program,
                               const kda_launch_args *args) {
  return guarded([&] {
    return withLaunchArgs(
        program, args,
        [](const Program &p, const LaunchArgs &la, void *) {
          return report(p.runCpu(la));
        },
        nullptr);
  });
}

} // extern "C"

