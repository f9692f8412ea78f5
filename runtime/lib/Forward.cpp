//===- Forward.cpp - the whole forward by tensor role ---------------------===//
//
// kda_forward*: maps the tensors of a forward, given by role, onto the
// arguments of a program=chunk_fwd bundle (by their manifest names), checks
// that optional tensors are passed exactly when the bundle takes them, then
// uses the generic program API, which validates shapes, dtypes, pointers and
// the workspace before anything runs.
//
//===----------------------------------------------------------------------===//

#include "kda_forward.h"

#include "DefaultBundles.h"
#include "Internal.h"

#include <cstring>
#include <string>

namespace {

/// One role of kda_forward_tensors and its manifest name.
struct Role {
  const char *name;
  const kda_tensor kda_forward_tensors::*member;
  bool optional;
};

constexpr Role kRoles[] = {
    {"q", &kda_forward_tensors::q, false},
    {"k", &kda_forward_tensors::k, false},
    {"v", &kda_forward_tensors::v, false},
    {"g", &kda_forward_tensors::g, false},
    {"beta", &kda_forward_tensors::beta, false},
    {"a_log", &kda_forward_tensors::a_log, true},
    {"dt_bias", &kda_forward_tensors::dt_bias, true},
    {"initial_state", &kda_forward_tensors::initial_state, true},
    {"cu_seqlens", &kda_forward_tensors::cu_seqlens, true},
    {"o", &kda_forward_tensors::o, false},
    {"final_state", &kda_forward_tensors::final_state, true},
};

/// Fails with `message` (the thread's last error).
kda_status fail(const std::string &message) {
  kda::rt::setLastError(message);
  return KDA_ERROR_INVALID_ARGUMENT;
}

/// Fills `ordered` (one tensor per bundle argument, manifest order) from
/// `t`; reports a missing or unexpected tensor by name.
kda_status orderTensors(const kda_program *program,
                        const kda_forward_tensors *t, kda_tensor *ordered,
                        size_t &count) {
  if (!program || !t)
    return fail("null program or tensors");
  const char *key = kda_program_key(program, "program");
  if (!key || std::strcmp(key, "chunk_fwd") != 0)
    return fail(std::string("the bundle computes program=") +
                (key ? key : "(none)") +
                ", not the whole forward (program=chunk_fwd)");
  const int numArgs = kda_program_num_args(program);
  if (numArgs < 0 || numArgs > kda::rt::kMaxArgs)
    return fail("the bundle has an unexpected number of arguments");
  count = static_cast<size_t>(numArgs);
  int matched = 0;
  for (const Role &role : kRoles) {
    const kda_tensor &tensor = t->*role.member;
    const int index = kda_program_arg_index(program, role.name);
    const bool passed = tensor.rank != 0;
    if (index < 0) {
      if (passed)
        return fail(std::string("'") + role.name +
                    "' was passed, but the bundle was compiled without it");
      continue;
    }
    if (!passed)
      return fail(std::string("the bundle takes '") + role.name +
                  "', which was not passed (rank 0)");
    ordered[index] = tensor;
    ++matched;
  }
  if (matched != numArgs)
    return fail("the bundle has arguments that are not part of a forward");
  return KDA_OK;
}

/// The generic launch arguments of a forward.
kda_launch_args launchArgs(const kda_forward_tensors *t,
                           const kda_tensor *ordered, size_t count,
                           void *workspace, size_t workspaceBytes) {
  kda_launch_args args{};
  args.tensors = ordered;
  args.num_tensors = count;
  if (t->cu_seqlens.rank != 0) {
    args.cu_seqlens_host = t->cu_seqlens_host;
    args.num_cu_seqlens_host =
        static_cast<size_t>(t->cu_seqlens.dims[0] > 0 ? t->cu_seqlens.dims[0]
                                                      : 0);
  }
  args.workspace = workspace;
  args.workspace_bytes = workspaceBytes;
  return args;
}

} // namespace

extern "C" {

kda_status kda_forward_workspace_size(const kda_program *program,
                                      const kda_forward_tensors *tensors,
                                      size_t *bytes) {
  kda_tensor ordered[kda::rt::kMaxArgs];
  size_t count = 0;
  if (kda_status s = orderTensors(program, tensors, ordered, count))
    return s;
  return kda_program_workspace_size(program, ordered, count, bytes);
}

kda_status kda_forward(const kda_program *program,
                       const kda_forward_tensors *tensors, void *workspace,
                       size_t workspace_bytes, void *stream) {
  kda_tensor ordered[kda::rt::kMaxArgs];
  size_t count = 0;
  if (kda_status s = orderTensors(program, tensors, ordered, count))
    return s;
  kda_launch_args args =
      launchArgs(tensors, ordered, count, workspace, workspace_bytes);
  return kda_program_launch(program, &args, stream);
}

kda_status kda_forward_cpu(const kda_program *program,
                           const kda_forward_tensors *tensors, void *workspace,
                           size_t workspace_bytes) {
  kda_tensor ordered[kda::rt::kMaxArgs];
  size_t count = 0;
  if (kda_status s = orderTensors(program, tensors, ordered, count))
    return s;
  kda_launch_args args =
      launchArgs(tensors, ordered, count, workspace, workspace_bytes);
  return kda_program_run_cpu(program, &args);
}

const char *kda_forward_default_names(void) {
  static const std::string names = [] {
    std::string text;
    for (int i = 0; i < kda_num_default_bundles; ++i)
      text += (i ? ", " : "") + std::string(kda_default_bundles[i].name);
    return text;
  }();
  return names.c_str();
}

kda_status kda_forward_default_program(const char *name,
                                       kda_program **program) {
  if (!name || !program)
    return fail("null name or program pointer");
  for (int i = 0; i < kda_num_default_bundles; ++i) {
    const kda_default_bundle &bundle = kda_default_bundles[i];
    if (std::strcmp(bundle.name, name) == 0)
      return kda_program_load_memory(
          bundle.begin, static_cast<size_t>(bundle.end - bundle.begin),
          program);
  }
  const char *names = kda_forward_default_names();
  return fail(std::string("no default bundle '") + name + "' (" +
              (*names ? std::string("the library has ") + names
                      : std::string("the library was built without default "
                                    "bundles")) +
              ")");
}

} // extern "C"
