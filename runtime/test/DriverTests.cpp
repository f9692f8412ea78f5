//===- DriverTests.cpp - driver loading, modules and launches (mock) ------===//

#include "MockCuda.h"
#include "TestBundles.h"
#include "Tests.h"

#include <atomic>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <thread>

namespace kda::rt::test {

namespace {

std::unique_ptr<Program> load(const std::string &bundle,
                              const std::string &driverPath,
                              bool forcePtx = false) {
  std::unique_ptr<Program> p;
  ProgramOptions o;
  o.driverPath = driverPath;
  o.forcePtx = forcePtx;
  if (!Program::fromMemory(bundle.data(), bundle.size(), p, o))
    return nullptr;
  return p;
}

void missingDriverTests(Harness &h) {
  FullArgs a(128, 2, 4, {0, 50, 128});
  auto p = load(makeBundle(kFullManifest), "/nonexistent/libcuda.so.1");
  Status s = p->launch(a.args(), nullptr);
  h.expectError("driver/missing", s, ErrorCode::DriverNotFound,
                "cannot load the CUDA driver '/nonexistent/libcuda.so.1': "
                "/nonexistent/libcuda.so.1: cannot open shared object file");
  h.record("driver/missing-nothing-written", a.o.untouched());

  // The default path honours $KDA_CUDA_DRIVER.
  const char *saved = std::getenv("KDA_CUDA_DRIVER");
  std::string savedValue = saved ? saved : "";
  setenv("KDA_CUDA_DRIVER", "/nonexistent/env/libcuda.so.1", 1);
  auto q = load(makeBundle(kFullManifest), "");
  h.expectError("driver/missing-from-env", q->launch(a.args(), nullptr),
                ErrorCode::DriverNotFound,
                "cannot load the CUDA driver '/nonexistent/env/libcuda.so.1'");
  h.expectError("driver/missing-prepare", q->prepare(),
                ErrorCode::DriverNotFound, "/nonexistent/env/libcuda.so.1");
  if (saved)
    setenv("KDA_CUDA_DRIVER", savedValue.c_str(), 1);
  else
    unsetenv("KDA_CUDA_DRIVER");
  h.record("driver/missing-from-env-nothing-written", a.o.untouched());

  const Driver *d = nullptr;
  h.expectError("driver/not-a-driver", Driver::open("libm.so.6", d),
                ErrorCode::DriverNotFound,
                "'libm.so.6' is not a usable CUDA driver: it does not export "
                "cuInit");

  MockInstance none = freshMock("no-device");
  none.state->deviceCount = 0;
  h.expectError("driver/no-device", Driver::open(none.path, d),
                ErrorCode::NoDevice, "reports no device");
  MockInstance noDev = freshMock("init-no-device");
  noDev.state->initResult = 100;
  h.expectError("driver/init-no-device", Driver::open(noDev.path, d),
                ErrorCode::NoDevice,
                "cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is "
                "detected)");
  MockInstance stub = freshMock("stub");
  stub.state->initResult = 34;
  Status st = Driver::open(stub.path, d);
  h.expectError("driver/stub-library", st, ErrorCode::CudaError,
                "cuInit failed: CUDA_ERROR_STUB_LIBRARY (CUDA driver is a "
                "stub library)");
  h.record("driver/stub-library-cuda-name",
           st.cudaName() == "CUDA_ERROR_STUB_LIBRARY" && st.cudaResult() == 34,
           st.cudaName());
  // Failures are cached: a second open reports the same error.
  h.expectError("driver/failure-cached", Driver::open(stub.path, d),
                ErrorCode::CudaError, "CUDA_ERROR_STUB_LIBRARY");
}

void moduleTests(Harness &h) {
  MockInstance jit = freshMock("jit-failure");
  jit.state->jitResult = 218;
  auto p = load(makeBundle(kFullManifest), jit.path);
  Status s = p->prepare();
  h.expectError("module/jit-log", s, ErrorCode::CudaError,
                "loading the PTX of 'test_full' (sm_90) on device 0 (KDA mock "
                "GPU, sm_90): cuModuleLoadDataEx failed: "
                "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed); JIT "
                "log: ptxas application ptx input, line 7; error   : mock JIT "
                "failure | ptxas fatal   : Ptx assembly aborted due to errors");
  h.record("module/jit-cuda-name", s.cudaName() == "CUDA_ERROR_INVALID_PTX",
           s.cudaName());
  FullArgs a(128, 2, 4, {0, 50, 128});
  h.expectError("module/jit-failure-launch", p->launch(a.args(), nullptr),
                ErrorCode::CudaError, "JIT log");
  h.record("module/jit-failure-nothing-launched",
           jit.state->launches == 0 && a.o.untouched());

  MockInstance old = freshMock("old-device");
  old.state->ccMajor = 8;
  p = load(makeBundle(kFullManifest), old.path);
  h.expectError("module/device-too-old", p->prepare(), ErrorCode::Unsupported,
                "the bundle targets sm_90, which device 0 (KDA mock GPU, "
                "sm_80) cannot run");
  MockInstance hopper = freshMock("sm90a-on-sm100");
  hopper.state->ccMajor = 10;
  std::string m90a = kFullManifest;
  m90a.replace(m90a.find("sm_90"), 5, "sm_90a");
  p = load(makeBundle(m90a), hopper.path);
  h.expectError("module/arch-specific-elsewhere", p->prepare(),
                ErrorCode::Unsupported,
                "the bundle targets sm_90a, which device 0 (KDA mock GPU, "
                "sm_100) cannot run");

  MockInstance small = freshMock("few-threads");
  small.state->maxThreadsPerBlock = 64;
  p = load(makeBundle(kFullManifest), small.path);
  h.expectError("module/too-many-threads", p->prepare(), ErrorCode::Unsupported,
                "kernel 'test_full_k' launches 128 threads per block, but on "
                "device 0 (KDA mock GPU, sm_90) it allows 64");
  MockInstance smem = freshMock("little-smem");
  smem.state->maxSharedOptin = 49152;
  p = load(makeBundle(kFullManifest), smem.path);
  h.expectError("module/too-much-shared", p->prepare(), ErrorCode::Unsupported,
                "kernel 'test_full_k' needs 65536 bytes of shared memory "
                "(65536 dynamic), device 0 (KDA mock GPU, sm_90) allows 49152");
  h.record("module/failed-loads-unloaded",
           small.state->moduleUnloads == small.state->moduleLoads &&
               smem.state->moduleUnloads == smem.state->moduleLoads);

  // A cubin the device refuses falls back to the PTX.
  MockInstance cubin = freshMock("cubin");
  std::string manifest = kFullManifest;
  std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n" +
                    ptxEntry("test_full_k", 51);
  p = load(makeBundle({{"manifest", manifest},
                       {"ptx", ptx},
                       {"cubin", "\x7f" "ELF fake cubin"}}),
           cubin.path);
  s = p->prepare();
  h.record("module/cubin-falls-back-to-ptx",
           s && cubin.state->moduleLoads == 2 && cubin.state->lastImageWasPtx,
           s.message());
  MockInstance forced = freshMock("force-ptx");
  p = load(makeBundle({{"manifest", manifest},
                       {"ptx", ptx},
                       {"cubin", "\x7f" "ELF fake cubin"}}),
           forced.path, /*forcePtx=*/true);
  s = p->prepare();
  h.record("module/force-ptx",
           s && forced.state->moduleLoads == 1 && forced.state->lastImageWasPtx,
           s.message());
}

void launchTests(Harness &h) {
  MockInstance mock = freshMock("launch");
  KdaMockState *st = mock.state;
  auto p = load(makeBundle(kFullManifest), mock.path);
  FullArgs a(128, 2, 4, {0, 50, 128});
  h.record("launch/lazy-no-load-before-first-launch", st->moduleLoads == 0 &&
                                                        st->calls == 0);
  const Driver *d = nullptr;
  h.expectOk("launch/driver", p->driver(d));
  if (!d)
    return;
  cu::CUstream userStream = nullptr;
  d->cuStreamCreate(&userStream, cu::CU_STREAM_NON_BLOCKING);
  Status s = p->launch(a.args(), userStream);
  h.expectOk("launch/first", s);
  h.record("launch/module-loaded-once",
           st->moduleLoads == 1 && st->launches == 1, std::to_string(st->moduleLoads));
  h.record("launch/dynamic-shared-attribute-set", st->setAttributes == 1);

  const KdaMockLaunch &l = st->last;
  auto u = [](const void *ptr) {
    return static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(ptr));
  };
  unsigned long long q = u(a.q.data), g = u(a.g.data), cu = u(a.cu.data),
                     o = u(a.o.data), ws = u(a.ws.data);
  unsigned long long expected[51] = {
      q,  q,  0, 1, 128, 2, 8, 2048, 16, 8, 1,   // q [1,128,2,8]
      g,  g,  0, 1, 128, 4, 8, 4096, 32, 8, 1,   // g [1,128,4,8]
      cu, cu, 0, 3, 1,                           // cu_seqlens [3]
      o,  o,  0, 1, 128, 4, 8, 4096, 32, 8, 1,   // o [1,128,4,8]
      ws, ws, 0, 128, 4, 4, 1,                   // scratch f32 [128,4]
      ws + 2048, ws + 2048, 0, 25, 1,            // small i32 [25] at 2048
      2};                                        // index N1 - 1
  bool paramsOk = l.numParams == 51;
  int firstBad = -1;
  for (int i = 0; i < 51 && paramsOk; ++i)
    if (l.params[i] != expected[i]) {
      paramsOk = false;
      firstBad = i;
    }
  h.record("launch/kernel-parameters", paramsOk,
           paramsOk ? "51 words as the manifest says"
                    : "word " + std::to_string(firstBad) + " is " +
                          std::to_string(l.params[firstBad < 0 ? 0 : firstBad]) +
                          ", numParams " + std::to_string(l.numParams));
  h.record("launch/geometry",
           std::strcmp(l.kernel, "test_full_k") == 0 && l.grid[0] == 2 &&
               l.grid[1] == 4 && l.grid[2] == 1 && l.block[0] == 128 &&
               l.block[1] == 1 && l.block[2] == 1 && l.shared == 65536 &&
               l.stream == userStream,
           std::string(l.kernel) + " grid " + std::to_string(l.grid[0]) + "," +
               std::to_string(l.grid[1]) + "," + std::to_string(l.grid[2]));

  // The second launch allocates nothing and loads nothing.
  long before = allocationCount();
  s = p->launch(a.args(), nullptr);
  long allocations = allocationCount() - before;
  h.record("launch/no-allocation", s && allocations == 0,
           std::to_string(allocations) + " allocations");
  h.record("launch/no-reload", st->moduleLoads == 1 && st->launches == 2);
  FullArgs badArgs(128, 3, 4, {0, 128});
  before = allocationCount();
  Status bad = p->launch(badArgs.args(), nullptr);
  h.record("launch/errors-do-allocate-messages",
           !bad && allocationCount() > before);

  // An empty problem launches nothing.
  FullArgs empty(0, 2, 4, {0, 0});
  for (TensorArg &t : empty.tensors)
    if (t.numElements() == 0)
      t.data = nullptr;
  long launches = st->launches;
  h.expectOk("launch/empty-problem", p->launch(empty.args(), nullptr));
  h.record("launch/empty-problem-skipped", st->launches == launches);

  // Driver launch errors come back with the CUDA name.
  st->launchResult = 719;
  s = p->launch(a.args(), nullptr);
  st->launchResult = 0;
  h.expectError("launch/driver-error", s, ErrorCode::CudaError,
                "cuLaunchKernel of kernel 'test_full_k' (grid 2,4,1) failed: "
                "CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)");

  // Many threads, one program.
  launches = st->launches;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      FullArgs mine(64, 2, 4, {0, 64});
      for (int i = 0; i < 100; ++i)
        if (!p->launch(mine.args(), nullptr))
          ++failures;
    });
  for (std::thread &t : threads)
    t.join();
  h.record("launch/threads", failures == 0 && st->launches == launches + 800 &&
                                 st->moduleLoads == 1,
           std::to_string(st->launches - launches) + " launches, " +
               std::to_string(failures.load()) + " failures");

  // Capture into a graph: the launch is recorded, and replayed.
  {
    cu::CUstream stream = nullptr;
    cu::CUgraph graph = nullptr;
    cu::CUgraphExec exec = nullptr;
    bool ok = d->cuStreamCreate(&stream, cu::CU_STREAM_NON_BLOCKING) == 0 &&
              d->cuStreamBeginCapture_v2(
                  stream, cu::CU_STREAM_CAPTURE_MODE_GLOBAL) == 0;
    long calls = st->calls;
    ok = ok && p->launch(a.args(), stream).isOk();
    long launchCalls = st->calls - calls;
    ok = ok && d->cuStreamEndCapture(stream, &graph) == 0 &&
         d->cuGraphInstantiateWithFlags(&exec, graph, 0) == 0;
    launches = st->launches;
    ok = ok && d->cuGraphLaunch(exec, stream) == 0 &&
         st->capturedLaunches == 1 && st->launches == launches + 1;
    h.record("launch/graph-capture", ok);
    // cuCtxGetCurrent and cuLaunchKernel: nothing a capture forbids.
    h.record("launch/driver-calls-per-launch", launchCalls == 2,
             std::to_string(launchCalls));
    d->cuGraphExecDestroy(exec);
    d->cuGraphDestroy(graph);
    d->cuStreamDestroy_v2(stream);
  }

  // A thread without a current context gets the primary context.
  std::thread([&] {
    cu::CUcontext before = nullptr, after = nullptr;
    d->cuCtxGetCurrent(&before);
    Status s = p->prepare();
    d->cuCtxGetCurrent(&after);
    h.record("launch/primary-context-made-current",
             s && before == nullptr && after != nullptr, s.message());
  }).join();

  d->cuStreamDestroy_v2(userStream);
  long unloads = st->moduleUnloads;
  p.reset();
  h.record("launch/destroy-unloads-module", st->moduleUnloads == unloads + 1);
}

/// launchKernels: a sub-range of a two-kernel bundle, clamped to its kernels.
void launchRangeTests(Harness &h) {
  MockInstance mock = freshMock("launch-range");
  KdaMockState *st = mock.state;
  // The full manifest with its kernel twice, the second as test_full_k2.
  std::string manifest = kFullManifest;
  size_t begin = manifest.find("kernel test_full_k");
  size_t end = manifest.find("end-kernel", begin);
  if (begin == std::string::npos || end == std::string::npos) {
    h.record("launch-range/manifest", false, "no kernel block in kFullManifest");
    return;
  }
  end += std::string("end-kernel\n").size();
  std::string second = manifest.substr(begin, end - begin);
  second.replace(0, std::string("kernel test_full_k").size(),
                 "kernel test_full_k2");
  manifest.insert(end, second);
  auto p = load(makeBundle(manifest), mock.path);
  if (!p || p->manifest().kernels.size() != 2) {
    h.record("launch-range/two-kernels", false, "bundle did not load");
    return;
  }
  FullArgs a(128, 2, 4, {0, 50, 128});
  long launches = st->launches;
  Status s = p->launchKernels(a.args(), nullptr, 1, 1);
  h.record("launch-range/second-only",
           s && st->launches == launches + 1 &&
               std::strcmp(st->last.kernel, "test_full_k2") == 0,
           s.message() + " " + st->last.kernel);
  launches = st->launches;
  s = p->launch(a.args(), nullptr);
  h.record("launch-range/launch-runs-both",
           s && st->launches == launches + 2 &&
               std::strcmp(st->last.kernel, "test_full_k2") == 0,
           s.message());
  launches = st->launches;
  s = p->launchKernels(a.args(), nullptr, 0, 1);
  h.record("launch-range/first-only",
           s && st->launches == launches + 1 &&
               std::strcmp(st->last.kernel, "test_full_k") == 0,
           s.message());
  launches = st->launches;
  Status past = p->launchKernels(a.args(), nullptr, 5, 1);
  Status none = p->launchKernels(a.args(), nullptr, 0, 0);
  Status many = p->launchKernels(a.args(), nullptr, 1, SIZE_MAX);
  h.record("launch-range/clamped", past && none && many &&
                                       st->launches == launches + 1,
           std::to_string(st->launches - launches) + " launches");
  // A sub-range still validates every argument first.
  FullArgs bad(128, 3, 4, {0, 128});
  launches = st->launches;
  h.record("launch-range/validates",
           !p->launchKernels(bad.args(), nullptr, 1, 1) &&
               st->launches == launches);
}

} // namespace

void runDriverTests(Harness &h) {
  missingDriverTests(h);
  moduleTests(h);
  launchTests(h);
  launchRangeTests(h);
}

} // namespace kda::rt::test
