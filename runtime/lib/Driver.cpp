//===- Driver.cpp - the CUDA driver API, resolved at run time -------------===//

#include "kda/Runtime/Driver.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>

namespace kda::rt {

std::string Driver::defaultPath() {
  const char *env = std::getenv("KDA_CUDA_DRIVER");
  if (env && *env)
    return env;
  return "libcuda.so.1";
}

namespace {

struct OpenResult {
  Status status;
  const Driver *driver = nullptr;
};

std::mutex &cacheMutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, OpenResult> &cache() {
  static auto *c = new std::map<std::string, OpenResult>();
  return *c;
}

/// Converts a dlsym result to a function pointer.
template <typename F> F toFunction(void *symbol) {
  F f;
  static_assert(sizeof f == sizeof symbol, "function pointer size");
  std::memcpy(&f, &symbol, sizeof f);
  return f;
}

} // namespace

Status Driver::open(const std::string &path, const Driver *&out) {
  std::string lib = path.empty() ? defaultPath() : path;
  std::lock_guard<std::mutex> lock(cacheMutex());
  auto it = cache().find(lib);
  if (it == cache().end()) {
    OpenResult result;
    Driver *d = new Driver();
    d->libraryPath = lib;
    Status s;
    void *handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *why = dlerror();
      s = Status::error(ErrorCode::DriverNotFound,
                        "cannot load the CUDA driver '" + lib +
                            "': " + (why ? why : "unknown error"));
    }
#define KDA_CU_RESOLVE(name, required, params)                                 \
  if (s) {                                                                     \
    d->name = toFunction<cu::PFN_##name>(dlsym(handle, #name));               \
    if (!d->name && required)                                                  \
      s = Status::error(ErrorCode::DriverNotFound,                             \
                        "'" + lib + "' is not a usable CUDA driver: it does "  \
                                    "not export " #name);                      \
  }
    KDA_CUDA_DRIVER_FUNCTIONS(KDA_CU_RESOLVE)
#undef KDA_CU_RESOLVE
    if (!s && handle)
      dlclose(handle);
    if (s) {
      cu::CUresult r = d->cuInit(0);
      if (r == cu::CUDA_ERROR_NO_DEVICE)
        s = Status::error(ErrorCode::NoDevice,
                          "cuInit: " + d->errorName(r) +
                              " (no CUDA-capable device is detected)");
      else if (r != cu::CUDA_SUCCESS)
        s = d->check(r, "cuInit");
    }
    if (s)
      s = d->check(d->cuDriverGetVersion(&d->driverVersion),
                   "cuDriverGetVersion");
    if (s)
      s = d->check(d->cuDeviceGetCount(&d->numDevices), "cuDeviceGetCount");
    if (s && d->numDevices <= 0)
      s = Status::error(ErrorCode::NoDevice,
                        "the CUDA driver '" + lib + "' reports no device");
    if (s) {
      result.driver = d;
    } else {
      delete d;
      result.status = s;
    }
    it = cache().emplace(lib, result).first;
  }
  out = it->second.driver;
  return it->second.status;
}

std::string Driver::errorName(cu::CUresult result) const {
  const char *name = nullptr;
  if (cuGetErrorName && cuGetErrorName(result, &name) == cu::CUDA_SUCCESS &&
      name)
    return name;
  return "CUDA error " + std::to_string(result);
}

Status Driver::check(cu::CUresult result, const char *what) const {
  if (result == cu::CUDA_SUCCESS)
    return Status::ok();
  std::string name = errorName(result);
  const char *description = nullptr;
  std::string message = std::string(what) + " failed: " + name;
  if (cuGetErrorString &&
      cuGetErrorString(result, &description) == cu::CUDA_SUCCESS &&
      description)
    message += std::string(" (") + description + ")";
  return Status::cuda(result, name, message);
}

Status Driver::primaryContext(int ordinal, cu::CUcontext &context) const {
  if (ordinal < 0 || ordinal >= numDevices)
    return Status::error(ErrorCode::InvalidArgument,
                         "device " + std::to_string(ordinal) +
                             " does not exist (the driver reports " +
                             std::to_string(numDevices) + " device" +
                             (numDevices == 1 ? "" : "s") + ")");
  std::lock_guard<std::mutex> lock(contextMutex);
  if (primaryContexts.size() < static_cast<size_t>(numDevices))
    primaryContexts.resize(numDevices, nullptr);
  if (!primaryContexts[ordinal]) {
    cu::CUdevice device;
    if (Status s = check(cuDeviceGet(&device, ordinal), "cuDeviceGet"); !s)
      return s;
    cu::CUcontext c = nullptr;
    if (Status s = check(cuDevicePrimaryCtxRetain(&c, device),
                         "cuDevicePrimaryCtxRetain");
        !s)
      return s;
    primaryContexts[ordinal] = c;
  }
  context = primaryContexts[ordinal];
  return Status::ok();
}

Status Driver::currentContext(int fallbackOrdinal,
                              cu::CUcontext &context) const {
  cu::CUcontext c = nullptr;
  if (Status s = check(cuCtxGetCurrent(&c), "cuCtxGetCurrent"); !s)
    return s;
  if (!c) {
    if (Status s = primaryContext(fallbackOrdinal, c); !s)
      return s;
    if (Status s = check(cuCtxSetCurrent(c), "cuCtxSetCurrent"); !s)
      return s;
  }
  context = c;
  return Status::ok();
}

Status Driver::deviceInfo(cu::CUdevice device, DeviceInfo &info) const {
  info = DeviceInfo();
  info.ordinal = device;
  char name[256] = {};
  if (Status s = check(cuDeviceGetName(name, sizeof name - 1, device),
                       "cuDeviceGetName");
      !s)
    return s;
  info.name = name;
  struct {
    cu::CUdevice_attribute attribute;
    int *value;
  } attributes[] = {
      {cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info.ccMajor},
      {cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info.ccMinor},
      {cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info.multiprocessors},
      {cu::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       &info.maxSharedOptin},
      {cu::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &info.l2Bytes},
  };
  for (auto &a : attributes)
    if (Status s = check(cuDeviceGetAttribute(a.value, a.attribute, device),
                         "cuDeviceGetAttribute");
        !s)
      return s;
  return Status::ok();
}

} // namespace kda::rt
