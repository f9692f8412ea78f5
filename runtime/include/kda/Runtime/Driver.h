//===- Driver.h - the CUDA driver API, resolved at run time ------*- C++ -*-===//
//
// The runtime needs no CUDA toolkit: it declares the few driver types and
// constants it uses, lists the driver entry points once (an X-macro), and
// resolves them with dlopen/dlsym from libcuda.so.1 (or $KDA_CUDA_DRIVER).
// Where the ABI versioned a function (cuMemAlloc_v2, ...), the versioned
// symbol is used. When cuda.h is available at build time, lib/DriverCheck.cpp
// checks these declarations against it.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUNTIME_DRIVER_H
#define KDA_RUNTIME_DRIVER_H

#include "kda/Runtime/Status.h"

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace kda::rt {
namespace cu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
using CUcontext = CUctx_st *;
struct CUmod_st;
using CUmodule = CUmod_st *;
struct CUfunc_st;
using CUfunction = CUfunc_st *;
struct CUstream_st;
using CUstream = CUstream_st *;
struct CUevent_st;
using CUevent = CUevent_st *;
struct CUgraph_st;
using CUgraph = CUgraph_st *;
struct CUgraphExec_st;
using CUgraphExec = CUgraphExec_st *;
// Enums of the driver API are passed as 32-bit ints.
using CUjit_option = int;
using CUdevice_attribute = int;
using CUfunction_attribute = int;
using CUpointer_attribute = int;
using CUstreamCaptureMode = int;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_INVALID_PTX = 218;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;

constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr CUdevice_attribute
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;

constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_NUM_REGS = 4;
constexpr CUfunction_attribute
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

constexpr CUpointer_attribute CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2;
constexpr unsigned CU_MEMORYTYPE_DEVICE = 2;

constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
constexpr unsigned CU_EVENT_DEFAULT = 0;
constexpr CUstreamCaptureMode CU_STREAM_CAPTURE_MODE_GLOBAL = 0;
constexpr CUstreamCaptureMode CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;

/// Dynamic shared memory a kernel may use without opting in.
constexpr int kDefaultMaxDynamicShared = 48 * 1024;

} // namespace cu

/// The driver entry points: X(name, required, (parameters)). Optional ones
/// may be missing from old drivers; their pointers are then null.
#define KDA_CUDA_DRIVER_FUNCTIONS(X)                                           \
  X(cuInit, true, (unsigned int flags))                                        \
  X(cuDriverGetVersion, true, (int *version))                                  \
  X(cuGetErrorName, true, (CUresult error, const char **str))                  \
  X(cuGetErrorString, true, (CUresult error, const char **str))                \
  X(cuDeviceGetCount, true, (int *count))                                      \
  X(cuDeviceGet, true, (CUdevice * device, int ordinal))                       \
  X(cuDeviceGetAttribute, true,                                                \
    (int *value, CUdevice_attribute attribute, CUdevice device))               \
  X(cuDeviceGetName, true, (char *name, int length, CUdevice device))          \
  X(cuDevicePrimaryCtxRetain, true, (CUcontext * context, CUdevice device))    \
  X(cuCtxGetCurrent, true, (CUcontext * context))                              \
  X(cuCtxSetCurrent, true, (CUcontext context))                                \
  X(cuCtxGetDevice, true, (CUdevice * device))                                 \
  X(cuCtxPushCurrent_v2, true, (CUcontext context))                            \
  X(cuCtxPopCurrent_v2, true, (CUcontext * context))                           \
  X(cuModuleLoadDataEx, true,                                                  \
    (CUmodule * module, const void *image, unsigned int numOptions,            \
     CUjit_option *options, void **optionValues))                              \
  X(cuModuleUnload, true, (CUmodule module))                                   \
  X(cuModuleGetFunction, true,                                                 \
    (CUfunction * function, CUmodule module, const char *name))                \
  X(cuFuncGetAttribute, true,                                                  \
    (int *value, CUfunction_attribute attribute, CUfunction function))         \
  X(cuFuncSetAttribute, true,                                                  \
    (CUfunction function, CUfunction_attribute attribute, int value))          \
  X(cuLaunchKernel, true,                                                      \
    (CUfunction function, unsigned int gridX, unsigned int gridY,              \
     unsigned int gridZ, unsigned int blockX, unsigned int blockY,             \
     unsigned int blockZ, unsigned int sharedBytes, CUstream stream,           \
     void **params, void **extra))                                             \
  X(cuMemAlloc_v2, true, (CUdeviceptr * pointer, size_t bytes))                \
  X(cuMemFree_v2, true, (CUdeviceptr pointer))                                 \
  X(cuMemcpyHtoD_v2, true,                                                     \
    (CUdeviceptr destination, const void *source, size_t bytes))               \
  X(cuMemcpyDtoH_v2, true,                                                     \
    (void *destination, CUdeviceptr source, size_t bytes))                     \
  X(cuMemsetD8_v2, true,                                                       \
    (CUdeviceptr destination, unsigned char value, size_t count))              \
  X(cuMemsetD8Async, true,                                                     \
    (CUdeviceptr destination, unsigned char value, size_t count,               \
     CUstream stream))                                                         \
  X(cuStreamCreate, true, (CUstream * stream, unsigned int flags))             \
  X(cuStreamDestroy_v2, true, (CUstream stream))                               \
  X(cuStreamSynchronize, true, (CUstream stream))                              \
  X(cuEventCreate, true, (CUevent * event, unsigned int flags))                \
  X(cuEventDestroy_v2, true, (CUevent event))                                  \
  X(cuEventRecord, true, (CUevent event, CUstream stream))                     \
  X(cuEventSynchronize, true, (CUevent event))                                 \
  X(cuEventElapsedTime, true,                                                  \
    (float *milliseconds, CUevent start, CUevent end))                         \
  X(cuPointerGetAttribute, false,                                              \
    (void *data, CUpointer_attribute attribute, CUdeviceptr pointer))          \
  X(cuStreamBeginCapture_v2, false,                                            \
    (CUstream stream, CUstreamCaptureMode mode))                               \
  X(cuStreamEndCapture, false, (CUstream stream, CUgraph * graph))             \
  X(cuGraphInstantiateWithFlags, false,                                        \
    (CUgraphExec * exec, CUgraph graph, unsigned long long flags))             \
  X(cuGraphLaunch, false, (CUgraphExec exec, CUstream stream))                 \
  X(cuGraphExecDestroy, false, (CUgraphExec exec))                             \
  X(cuGraphDestroy, false, (CUgraph graph))

namespace cu {
#define KDA_CU_PFN(name, required, params) using PFN_##name = CUresult(*) params;
KDA_CUDA_DRIVER_FUNCTIONS(KDA_CU_PFN)
#undef KDA_CU_PFN
} // namespace cu

/// A loaded and initialized CUDA driver. Drivers are opened once per path
/// and never unloaded; open() is thread-safe.
class Driver {
public:
  /// The library path used when none is given: $KDA_CUDA_DRIVER if set and
  /// non-empty, else "libcuda.so.1".
  static std::string defaultPath();

  /// Opens the driver at `path` (defaultPath() when empty), resolves its
  /// entry points, calls cuInit(0) and counts devices. Errors:
  /// DriverNotFound (cannot load, or not a CUDA driver), NoDevice (cuInit
  /// says so, or zero devices), CudaError (cuInit failed otherwise, e.g. the
  /// toolkit's stub library). The result, error included, is cached.
  static Status open(const std::string &path, const Driver *&out);

  /// The library path.
  const std::string &path() const { return libraryPath; }
  /// cuDriverGetVersion (e.g. 13000).
  int version() const { return driverVersion; }
  /// Number of devices.
  int deviceCount() const { return numDevices; }

  /// "CUDA_ERROR_..." for a CUresult.
  std::string errorName(cu::CUresult result) const;
  /// Ok when result is CUDA_SUCCESS, else a CudaError status
  /// "<what> failed: CUDA_ERROR_X (description)".
  Status check(cu::CUresult result, const char *what) const;

  /// The primary context of device `ordinal`, retained on first use and kept
  /// for the life of the process.
  Status primaryContext(int ordinal, cu::CUcontext &context) const;
  /// The calling thread's current context; when there is none, the primary
  /// context of `fallbackOrdinal`, which is made current.
  Status currentContext(int fallbackOrdinal, cu::CUcontext &context) const;

  /// Facts about one device.
  struct DeviceInfo {
    int ordinal = 0;
    std::string name;
    int ccMajor = 0, ccMinor = 0;
    int multiprocessors = 0;
    int maxSharedOptin = 0;
    int l2Bytes = 0;
  };
  /// Reads DeviceInfo of `device`.
  Status deviceInfo(cu::CUdevice device, DeviceInfo &info) const;

#define KDA_CU_MEMBER(name, required, params) cu::PFN_##name name = nullptr;
  KDA_CUDA_DRIVER_FUNCTIONS(KDA_CU_MEMBER)
#undef KDA_CU_MEMBER

private:
  Driver() = default;
  std::string libraryPath;
  int driverVersion = 0;
  int numDevices = 0;
  mutable std::mutex contextMutex;
  mutable std::vector<cu::CUcontext> primaryContexts;
};

} // namespace kda::rt

#endif // KDA_RUNTIME_DRIVER_H
