//===- Program.cpp - a loaded bundle: construction and validation ---------===//

#include "Internal.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

namespace kda::rt {

Program::Program(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}

Program::~Program() {
  if (!impl)
    return;
  if (impl->driver) {
    const Driver &d = *impl->driver;
    for (const auto &m : impl->modules) {
      // Unloading needs the module's context current; errors (a context
      // already destroyed, a driver shutting down) are ignored.
      if (d.cuCtxPushCurrent_v2(m->context) != cu::CUDA_SUCCESS)
        continue;
      (void)d.cuModuleUnload(m->module);
      cu::CUcontext popped;
      (void)d.cuCtxPopCurrent_v2(&popped);
    }
  }
  if (impl->cpuLibrary)
    dlclose(impl->cpuLibrary);
}

Status Program::fromBundle(Bundle bundle, std::unique_ptr<Program> &out,
                           const ProgramOptions &options) {
  auto impl = std::make_unique<Impl>();
  impl->bundle = std::move(bundle);
  impl->options = options;
  if (const char *env = std::getenv("KDA_RUNTIME_FORCE_PTX"))
    if (std::strcmp(env, "1") == 0)
      impl->options.forcePtx = true;
  if (const char *env = std::getenv("KDA_RUNTIME_NO_CPU"))
    if (std::strcmp(env, "1") == 0)
      impl->options.refuseCpu = true;
  if (options.device < 0)
    return Status::error(ErrorCode::InvalidArgument,
                         "device " + std::to_string(options.device) +
                             " is negative");
  out.reset(new Program(std::move(impl)));
  return Status::ok();
}

Status Program::load(const std::string &path, std::unique_ptr<Program> &out,
                     const ProgramOptions &options) {
  Bundle bundle;
  if (Status s = Bundle::readFile(path, bundle); !s)
    return s;
  return fromBundle(std::move(bundle), out, options);
}

Status Program::fromMemory(const void *data, size_t size,
                           std::unique_ptr<Program> &out,
                           const ProgramOptions &options) {
  if (!data && size)
    return Status::error(ErrorCode::InvalidArgument, "null bundle data");
  Bundle bundle;
  std::string_view bytes(static_cast<const char *>(data), data ? size : 0);
  if (Status s = Bundle::parse(bytes, bundle); !s)
    return s;
  return fromBundle(std::move(bundle), out, options);
}

const Bundle &Program::bundle() const { return impl->bundle; }

const ProgramOptions &Program::options() const { return impl->options; }

Status Program::workspaceSize(const TensorArg *tensors, size_t numTensors,
                              size_t &bytes) const {
  LaunchArgs args;
  args.tensors = tensors;
  args.numTensors = numTensors;
  Plan plan;
  if (Status s = detail::validateLaunch(manifest(), args,
                                        detail::CheckLevel::Shapes, plan);
      !s)
    return s;
  bytes = static_cast<size_t>(plan.workspaceBytes);
  return Status::ok();
}

Status Program::validate(const LaunchArgs &args, Plan &plan) const {
  return detail::validateLaunch(manifest(), args, detail::CheckLevel::Full,
                                plan);
}

Status Program::driver(const Driver *&out) const {
  return impl->getDriver(out);
}

} // namespace kda::rt
