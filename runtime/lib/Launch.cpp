//===- Launch.cpp - loading modules and launching kernels -----------------===//
//
// Modules are loaded per CUDA context on first use, with the driver's JIT
// log in the error. A launch validates everything first, then builds each
// kernel's parameters in fixed-size stack arrays and calls cuLaunchKernel on
// the caller's stream: no allocation, no synchronization, no other driver
// call once the module is loaded.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <algorithm>

namespace kda::rt {

Status Program::Impl::getDriver(const Driver *&out) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (driver) {
      out = driver;
      return Status::ok();
    }
  }
  const Driver *d = nullptr;
  if (Status s = Driver::open(options.driverPath, d); !s)
    return s;
  std::lock_guard<std::mutex> lock(mutex);
  driver = d;
  out = d;
  return Status::ok();
}

namespace {

/// Collapses a multi-line driver log into one line.
std::string oneLine(const char *log) {
  std::string s;
  for (const char *p = log; *p; ++p) {
    if (*p == '\n') {
      while (!s.empty() && s.back() == ' ')
        s.pop_back();
      if (!s.empty() && p[1])
        s += " | ";
    } else if (*p != '\r') {
      s += *p;
    }
  }
  return s;
}

std::string ccName(int major, int minor) {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

} // namespace

Status Program::Impl::loadModule(const Driver &d, cu::CUcontext context,
                                 std::unique_ptr<LoadedModule> &out) {
  const Manifest &m = bundle.manifest;
  cu::CUdevice device;
  if (Status s = d.check(d.cuCtxGetDevice(&device), "cuCtxGetDevice"); !s)
    return s;
  Driver::DeviceInfo info;
  if (Status s = d.deviceInfo(device, info); !s)
    return s;
  std::string deviceText = "device " + std::to_string(device) + " (" +
                           info.name + ", " +
                           ccName(info.ccMajor, info.ccMinor) + ")";
  int deviceCC = info.ccMajor * 10 + info.ccMinor;
  int chipCC = m.chipMajor * 10 + m.chipMinor;
  if (m.chipArchSpecific ? deviceCC != chipCC : deviceCC < chipCC)
    return Status::error(ErrorCode::Unsupported,
                         "the bundle targets " + m.chip + ", which " +
                             deviceText + " cannot run");

  auto loaded = std::make_unique<LoadedModule>();
  loaded->context = context;
  std::vector<char> infoLog(16384, 0), errorLog(16384, 0);
  auto loadImage = [&](const void *image, const char *what) -> Status {
    std::fill(infoLog.begin(), infoLog.end(), 0);
    std::fill(errorLog.begin(), errorLog.end(), 0);
    cu::CUjit_option options[] = {cu::CU_JIT_INFO_LOG_BUFFER,
                                  cu::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                                  cu::CU_JIT_ERROR_LOG_BUFFER,
                                  cu::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {
        infoLog.data(),
        reinterpret_cast<void *>(static_cast<uintptr_t>(infoLog.size() - 1)),
        errorLog.data(),
        reinterpret_cast<void *>(static_cast<uintptr_t>(errorLog.size() - 1))};
    cu::CUresult r = d.cuModuleLoadDataEx(&loaded->module, image, 4, options,
                                          values);
    if (r == cu::CUDA_SUCCESS)
      return Status::ok();
    loaded->module = nullptr;
    Status s = d.check(r, "cuModuleLoadDataEx");
    std::string log = oneLine(errorLog.data());
    if (log.empty())
      log = oneLine(infoLog.data());
    return Status::cuda(r, s.cudaName(),
                        std::string("loading the ") + what + " of '" +
                            m.entry + "' (" + m.chip + ") on " + deviceText +
                            ": " + s.message() +
                            (log.empty() ? "" : "; JIT log: " + log));
  };
  bool useCubin = bundle.hasCubin && !options.forcePtx && deviceCC == chipCC;
  Status loadStatus;
  if (useCubin)
    loadStatus = loadImage(bundle.cubin.data(), "cubin");
  if (!useCubin || !loadStatus) {
    Status ptxStatus = loadImage(bundle.ptx.c_str(), "PTX");
    if (!ptxStatus)
      return useCubin ? ptxStatus.withPrefix(loadStatus.message() + "; then ")
                      : ptxStatus;
  }

  auto fail = [&](Status s) {
    (void)d.cuModuleUnload(loaded->module);
    return s;
  };
  for (const KernelSpec &k : m.kernels) {
    cu::CUfunction f = nullptr;
    cu::CUresult r = d.cuModuleGetFunction(&f, loaded->module, k.name.c_str());
    if (r != cu::CUDA_SUCCESS)
      return fail(d.check(r, ("cuModuleGetFunction('" + k.name + "')").c_str()));
    int maxThreads = 0, staticShared = 0, registers = 0;
    if (Status s = d.check(d.cuFuncGetAttribute(
                               &maxThreads,
                               cu::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f),
                           "cuFuncGetAttribute");
        !s)
      return fail(s);
    if (Status s = d.check(
            d.cuFuncGetAttribute(&staticShared,
                                 cu::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f),
            "cuFuncGetAttribute");
        !s)
      return fail(s);
    (void)d.cuFuncGetAttribute(&registers, cu::CU_FUNC_ATTRIBUTE_NUM_REGS, f);
    int64_t threads = k.block[0] * k.block[1] * k.block[2];
    if (threads > maxThreads)
      return fail(Status::error(
          ErrorCode::Unsupported,
          "kernel '" + k.name + "' launches " + std::to_string(threads) +
              " threads per block, but on " + deviceText + " it allows " +
              std::to_string(maxThreads) + " (" + std::to_string(registers) +
              " registers per thread)"));
    int64_t shared = k.sharedBytes + staticShared;
    if (shared > cu::kDefaultMaxDynamicShared) {
      if (shared > info.maxSharedOptin)
        return fail(Status::error(
            ErrorCode::Unsupported,
            "kernel '" + k.name + "' needs " + std::to_string(shared) +
                " bytes of shared memory (" + std::to_string(k.sharedBytes) +
                " dynamic), " + deviceText + " allows " +
                std::to_string(info.maxSharedOptin)));
      if (Status s = d.check(
              d.cuFuncSetAttribute(
                  f, cu::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                  static_cast<int>(k.sharedBytes)),
              "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
          !s)
        return fail(s);
    }
    loaded->functions.push_back(f);
  }
  out = std::move(loaded);
  return Status::ok();
}

Status Program::Impl::getModule(const Driver &d, const LoadedModule *&out) {
  std::lock_guard<std::mutex> lock(mutex);
  cu::CUcontext context = nullptr;
  if (Status s = d.currentContext(options.device, context); !s)
    return s;
  for (const auto &m : modules)
    if (m->context == context) {
      out = m.get();
      return Status::ok();
    }
  std::unique_ptr<LoadedModule> loaded;
  if (Status s = loadModule(d, context, loaded); !s)
    return s;
  modules.push_back(std::move(loaded));
  out = modules.back().get();
  return Status::ok();
}

Status Program::prepare() const {
  const Driver *d = nullptr;
  if (Status s = impl->getDriver(d); !s)
    return s;
  const LoadedModule *m = nullptr;
  return impl->getModule(*d, m);
}

Status Program::launch(const LaunchArgs &args, void *stream) const {
  return launchKernels(args, stream, 0, manifest().kernels.size());
}

Status Program::launchKernels(const LaunchArgs &args, void *stream,
                              size_t first, size_t count) const {
  const Manifest &m = manifest();
  Plan plan;
  if (Status s = detail::validateLaunch(m, args, detail::CheckLevel::Full,
                                        plan);
      !s)
    return s;
  const Driver *d = nullptr;
  if (Status s = impl->getDriver(d); !s)
    return s;
  const LoadedModule *module = nullptr;
  if (Status s = impl->getModule(*d, module); !s)
    return s;

  uint64_t words[kMaxKernelParams];
  void *params[kMaxKernelParams];
  for (int i = 0; i < kMaxKernelParams; ++i)
    params[i] = &words[i];
  const size_t numArgs = m.args.size();
  first = std::min(first, m.kernels.size());
  const size_t end = first + std::min(count, m.kernels.size() - first);
  for (size_t k = first; k < end; ++k) {
    const KernelSpec &ks = m.kernels[k];
    const int64_t *grid = plan.grids[k];
    if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
      continue; // nothing to do (an empty problem)
    int n = 0;
    for (const ParamSpec &p : ks.params) {
      switch (p.kind) {
      case ParamSpec::Kind::Arg: {
        const TensorArg &t = args.tensors[p.arg];
        n += detail::writeDescriptor(reinterpret_cast<uintptr_t>(t.data),
                                     t.dims, t.rank, words + n);
        break;
      }
      case ParamSpec::Kind::Workspace: {
        int64_t dims[kMaxRank] = {};
        int rank = static_cast<int>(p.dims.size());
        for (int i = 0; i < rank; ++i)
          (void)p.dims[i].eval(args.tensors, numArgs, dims[i]);
        uint64_t base = reinterpret_cast<uintptr_t>(args.workspace) +
                        static_cast<uint64_t>(
                            plan.workspaceOffsets[p.workspace]);
        n += detail::writeDescriptor(base, dims, rank, words + n);
        break;
      }
      case ParamSpec::Kind::Index: {
        int64_t v = 0;
        (void)p.value.eval(args.tensors, numArgs, v);
        words[n++] = static_cast<uint64_t>(v);
        break;
      }
      }
    }
    cu::CUresult r = d->cuLaunchKernel(
        module->functions[k], static_cast<unsigned>(grid[0]),
        static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2]),
        static_cast<unsigned>(ks.block[0]), static_cast<unsigned>(ks.block[1]),
        static_cast<unsigned>(ks.block[2]),
        static_cast<unsigned>(ks.sharedBytes),
        static_cast<cu::CUstream>(stream), params, nullptr);
    if (r != cu::CUDA_SUCCESS) {
      std::string what = "cuLaunchKernel of kernel '" + ks.name + "' (grid " +
                         std::to_string(grid[0]) + "," +
                         std::to_string(grid[1]) + "," +
                         std::to_string(grid[2]) + ")";
      return d->check(r, what.c_str());
    }
  }
  return Status::ok();
}

} // namespace kda::rt
