//===- MockCuda.cpp - a mock CUDA driver over host memory -----------------===//
//
// Stands in for libcuda.so.1 in host-only tests: "device" memory is host
// memory, modules are the PTX text (kernels and their parameter counts are
// read from the .entry declarations), launches are recorded but run nothing,
// events advance a fake clock. See MockCuda.h.
//
//===----------------------------------------------------------------------===//

#include "MockCuda.h"

#include "kda/Runtime/Driver.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace kda::rt::cu;

#define MOCK_API extern "C" __attribute__((visibility("default")))

namespace {

std::mutex mockMutex;
KdaMockState state;
bool initialized = false;

int envInt(const char *name, int fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

void resetLocked() {
  std::memset(&state, 0, sizeof state);
  state.deviceCount = envInt("KDA_MOCK_CUDA_DEVICES", 1);
  int cc = envInt("KDA_MOCK_CUDA_CC", 90);
  state.ccMajor = cc / 10;
  state.ccMinor = cc % 10;
  state.initResult = envInt("KDA_MOCK_CUDA_INIT_RESULT", 0);
  state.jitResult = envInt("KDA_MOCK_CUDA_JIT_RESULT", 0);
  state.maxThreadsPerBlock = 1024;
  state.maxSharedOptin = 232448;
  initialized = true;
}

/// Locks the mock and counts one driver call.
struct Call {
  std::lock_guard<std::mutex> lock{mockMutex};
  Call() {
    if (!initialized)
      resetLocked();
    ++state.calls;
  }
};

struct MockContext {
  int device;
};
MockContext contexts[16] = {{0}, {1}, {2},  {3},  {4},  {5},  {6},  {7},
                            {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}};
thread_local MockContext *current = nullptr;
thread_local MockContext *pushed = nullptr;

struct MockFunction {
  std::string name;
  int numParams;
};
// Functions belong to their module and go with it, as with the driver.
struct MockModule {
  std::string ptx;
  std::vector<std::unique_ptr<MockFunction>> functions;
};
struct MockStream {
  bool capturing = false;
  long captured = 0;
};
struct MockEvent {
  float time = 0;
};
struct MockGraph {
  long launches = 0;
};
float clockMs = 0;

const struct {
  int code;
  const char *name;
  const char *text;
} kErrors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {34, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
};

} // namespace

MOCK_API KdaMockState *kda_mock_state(void) {
  std::lock_guard<std::mutex> lock(mockMutex);
  if (!initialized)
    resetLocked();
  return &state;
}

MOCK_API void kda_mock_reset(void) {
  std::lock_guard<std::mutex> lock(mockMutex);
  resetLocked();
}

MOCK_API CUresult cuInit(unsigned int) {
  Call c;
  return state.initResult;
}

MOCK_API CUresult cuDriverGetVersion(int *version) {
  Call c;
  *version = 13000;
  return 0;
}

MOCK_API CUresult cuGetErrorName(CUresult error, const char **str) {
  Call c;
  for (const auto &e : kErrors)
    if (e.code == error) {
      *str = e.name;
      return 0;
    }
  *str = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

MOCK_API CUresult cuGetErrorString(CUresult error, const char **str) {
  Call c;
  for (const auto &e : kErrors)
    if (e.code == error) {
      *str = e.text;
      return 0;
    }
  *str = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

MOCK_API CUresult cuDeviceGetCount(int *count) {
  Call c;
  *count = state.deviceCount;
  return 0;
}

MOCK_API CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  Call c;
  if (ordinal < 0 || ordinal >= state.deviceCount || ordinal >= 16)
    return CUDA_ERROR_INVALID_VALUE;
  *device = ordinal;
  return 0;
}

MOCK_API CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute a,
                                       CUdevice) {
  Call c;
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = state.ccMajor;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = state.ccMinor;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 132;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *value = state.maxSharedOptin;
    break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
    *value = 1 << 20;
    break;
  default:
    *value = 0;
  }
  return 0;
}

MOCK_API CUresult cuDeviceGetName(char *name, int length, CUdevice) {
  Call c;
  std::strncpy(name, "KDA mock GPU", static_cast<size_t>(length));
  return 0;
}

MOCK_API CUresult cuDevicePrimaryCtxRetain(CUcontext *context,
                                           CUdevice device) {
  Call c;
  if (device < 0 || device >= 16)
    return CUDA_ERROR_INVALID_VALUE;
  *context = reinterpret_cast<CUcontext>(&contexts[device]);
  return 0;
}

MOCK_API CUresult cuCtxGetCurrent(CUcontext *context) {
  Call c;
  *context = reinterpret_cast<CUcontext>(current);
  return 0;
}

MOCK_API CUresult cuCtxSetCurrent(CUcontext context) {
  Call c;
  current = reinterpret_cast<MockContext *>(context);
  return 0;
}

MOCK_API CUresult cuCtxGetDevice(CUdevice *device) {
  Call c;
  if (!current)
    return 201;
  *device = current->device;
  return 0;
}

MOCK_API CUresult cuCtxPushCurrent_v2(CUcontext context) {
  Call c;
  pushed = current;
  current = reinterpret_cast<MockContext *>(context);
  return 0;
}

MOCK_API CUresult cuCtxPopCurrent_v2(CUcontext *context) {
  Call c;
  if (context)
    *context = reinterpret_cast<CUcontext>(current);
  current = pushed;
  pushed = nullptr;
  return 0;
}

MOCK_API CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                                     unsigned int numOptions,
                                     CUjit_option *options,
                                     void **optionValues) {
  Call c;
  if (!current)
    return 201;
  ++state.moduleLoads;
  const char *text = static_cast<const char *>(image);
  state.lastImageWasPtx = std::strncmp(text, "\x7f" "ELF", 4) != 0;
  if (state.jitResult) {
    char *log = nullptr;
    size_t size = 0;
    for (unsigned i = 0; i < numOptions; ++i) {
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
        log = static_cast<char *>(optionValues[i]);
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
        size = reinterpret_cast<uintptr_t>(optionValues[i]);
    }
    if (log && size)
      std::snprintf(log, size,
                    "ptxas application ptx input, line 7; error   : mock "
                    "JIT failure\nptxas fatal   : Ptx assembly aborted due "
                    "to errors\n");
    return state.jitResult;
  }
  // Cubins cannot be inspected here: refuse them, as a driver would for a
  // wrong architecture, so the runtime falls back to the PTX.
  if (!state.lastImageWasPtx)
    return 209;
  auto *m = new MockModule();
  m->ptx = text;
  *module = reinterpret_cast<CUmodule>(m);
  return 0;
}

MOCK_API CUresult cuModuleUnload(CUmodule module) {
  Call c;
  ++state.moduleUnloads;
  delete reinterpret_cast<MockModule *>(module);
  return 0;
}

MOCK_API CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                                      const char *name) {
  Call c;
  auto *m = reinterpret_cast<MockModule *>(module);
  const std::string &ptx = m->ptx;
  std::string needle = std::string(".entry ") + name + "(";
  size_t at = ptx.find(needle);
  if (at == std::string::npos)
    return CUDA_ERROR_NOT_FOUND;
  size_t close = ptx.find(')', at);
  int params = 0;
  for (size_t p = ptx.find(".param", at); p < close;
       p = ptx.find(".param", p + 1))
    ++params;
  m->functions.push_back(
      std::make_unique<MockFunction>(MockFunction{name, params}));
  *function = reinterpret_cast<CUfunction>(m->functions.back().get());
  return 0;
}

MOCK_API CUresult cuFuncGetAttribute(int *value, CUfunction_attribute a,
                                     CUfunction) {
  Call c;
  if (a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
    *value = state.maxThreadsPerBlock;
  else if (a == CU_FUNC_ATTRIBUTE_NUM_REGS)
    *value = 32;
  else
    *value = 0;
  return 0;
}

MOCK_API CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) {
  Call c;
  ++state.setAttributes;
  return 0;
}

MOCK_API CUresult cuLaunchKernel(CUfunction function, unsigned gx,
                                 unsigned gy, unsigned gz, unsigned bx,
                                 unsigned by, unsigned bz, unsigned shared,
                                 CUstream stream, void **params, void **) {
  Call c;
  if (state.launchResult)
    return state.launchResult;
  auto *f = reinterpret_cast<MockFunction *>(function);
  KdaMockLaunch &l = state.last;
  std::snprintf(l.kernel, sizeof l.kernel, "%s", f->name.c_str());
  l.grid[0] = gx;
  l.grid[1] = gy;
  l.grid[2] = gz;
  l.block[0] = bx;
  l.block[1] = by;
  l.block[2] = bz;
  l.shared = shared;
  l.stream = stream;
  l.numParams = f->numParams;
  for (int i = 0; i < f->numParams && i < 1024; ++i)
    std::memcpy(&l.params[i], params[i], 8);
  auto *s = reinterpret_cast<MockStream *>(stream);
  if (s && s->capturing)
    ++s->captured, ++state.capturedLaunches;
  else
    ++state.launches;
  return 0;
}

MOCK_API CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  Call c;
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  void *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p)
    return 2;
  ++state.allocs;
  *pointer = reinterpret_cast<uintptr_t>(p);
  return 0;
}

MOCK_API CUresult cuMemFree_v2(CUdeviceptr pointer) {
  Call c;
  ++state.frees;
  std::free(reinterpret_cast<void *>(pointer));
  return 0;
}

MOCK_API CUresult cuMemcpyHtoD_v2(CUdeviceptr destination, const void *source,
                                  size_t bytes) {
  Call c;
  std::memcpy(reinterpret_cast<void *>(destination), source, bytes);
  return 0;
}

MOCK_API CUresult cuMemcpyDtoH_v2(void *destination, CUdeviceptr source,
                                  size_t bytes) {
  Call c;
  std::memcpy(destination, reinterpret_cast<void *>(source), bytes);
  return 0;
}

MOCK_API CUresult cuMemsetD8_v2(CUdeviceptr destination, unsigned char value,
                                size_t count) {
  Call c;
  std::memset(reinterpret_cast<void *>(destination), value, count);
  return 0;
}

MOCK_API CUresult cuMemsetD8Async(CUdeviceptr destination, unsigned char value,
                                  size_t count, CUstream) {
  Call c;
  std::memset(reinterpret_cast<void *>(destination), value, count);
  return 0;
}

MOCK_API CUresult cuStreamCreate(CUstream *stream, unsigned int) {
  Call c;
  *stream = reinterpret_cast<CUstream>(new MockStream());
  return 0;
}

MOCK_API CUresult cuStreamDestroy_v2(CUstream stream) {
  Call c;
  delete reinterpret_cast<MockStream *>(stream);
  return 0;
}

MOCK_API CUresult cuStreamSynchronize(CUstream) {
  Call c;
  return 0;
}

MOCK_API CUresult cuEventCreate(CUevent *event, unsigned int) {
  Call c;
  *event = reinterpret_cast<CUevent>(new MockEvent());
  return 0;
}

MOCK_API CUresult cuEventDestroy_v2(CUevent event) {
  Call c;
  delete reinterpret_cast<MockEvent *>(event);
  return 0;
}

MOCK_API CUresult cuEventRecord(CUevent event, CUstream) {
  Call c;
  clockMs += 0.25f;
  reinterpret_cast<MockEvent *>(event)->time = clockMs;
  return 0;
}

MOCK_API CUresult cuEventSynchronize(CUevent) {
  Call c;
  return 0;
}

MOCK_API CUresult cuEventElapsedTime(float *milliseconds, CUevent start,
                                     CUevent end) {
  Call c;
  *milliseconds = reinterpret_cast<MockEvent *>(end)->time -
                  reinterpret_cast<MockEvent *>(start)->time;
  return 0;
}

MOCK_API CUresult cuPointerGetAttribute(void *data, CUpointer_attribute,
                                        CUdeviceptr) {
  Call c;
  *static_cast<unsigned *>(data) = CU_MEMORYTYPE_DEVICE;
  return 0;
}

MOCK_API CUresult cuStreamBeginCapture_v2(CUstream stream,
                                          CUstreamCaptureMode) {
  Call c;
  if (!stream)
    return CUDA_ERROR_INVALID_VALUE;
  reinterpret_cast<MockStream *>(stream)->capturing = true;
  return 0;
}

MOCK_API CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  Call c;
  auto *s = reinterpret_cast<MockStream *>(stream);
  s->capturing = false;
  *graph = reinterpret_cast<CUgraph>(new MockGraph{s->captured});
  s->captured = 0;
  return 0;
}

MOCK_API CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph,
                                              unsigned long long) {
  Call c;
  *exec = reinterpret_cast<CUgraphExec>(
      new MockGraph(*reinterpret_cast<MockGraph *>(graph)));
  return 0;
}

MOCK_API CUresult cuGraphLaunch(CUgraphExec exec, CUstream) {
  Call c;
  ++state.graphLaunches;
  state.launches += reinterpret_cast<MockGraph *>(exec)->launches;
  return 0;
}

MOCK_API CUresult cuGraphExecDestroy(CUgraphExec exec) {
  Call c;
  delete reinterpret_cast<MockGraph *>(exec);
  return 0;
}

MOCK_API CUresult cuGraphDestroy(CUgraph graph) {
  Call c;
  delete reinterpret_cast<MockGraph *>(graph);
  return 0;
}
