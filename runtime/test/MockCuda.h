//===- MockCuda.h - control interface of the mock CUDA driver ----*- C++ -*-===//
//
// libkda-mock-cuda.so exports the CUDA driver entry points the runtime uses,
// over host memory, and records what it is asked to do. Point the runtime at
// it with ProgramOptions::driverPath or KDA_CUDA_DRIVER. Its configuration
// starts from the environment:
//   KDA_MOCK_CUDA_DEVICES=N      devices reported (default 1)
//   KDA_MOCK_CUDA_CC=MN          compute capability M.N (default 90)
//   KDA_MOCK_CUDA_INIT_RESULT=R  CUresult of cuInit (default 0)
//   KDA_MOCK_CUDA_JIT_RESULT=R   CUresult of cuModuleLoadDataEx (default 0)
// and tests in the same process may change it through kda_mock_state().
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUNTIME_TEST_MOCKCUDA_H
#define KDA_RUNTIME_TEST_MOCKCUDA_H

extern "C" {

/// One recorded cuLaunchKernel.
struct KdaMockLaunch {
  char kernel[128];
  unsigned grid[3];
  unsigned block[3];
  unsigned shared;
  void *stream;
  /// Parameters read as 64-bit words; as many as the PTX entry declares.
  int numParams;
  unsigned long long params[1024];
};

struct KdaMockState {
  // Configuration.
  int deviceCount;
  int ccMajor, ccMinor;
  int initResult;
  int jitResult;
  int launchResult;
  int maxThreadsPerBlock;
  int maxSharedOptin;
  // Counters.
  long calls;
  long launches;
  long moduleLoads;
  long moduleUnloads;
  long setAttributes;
  long allocs;
  long frees;
  long graphLaunches;
  long capturedLaunches;
  /// The last launch.
  KdaMockLaunch last;
  /// Whether the last image loaded was PTX (else a cubin).
  int lastImageWasPtx;
};

/// The mock's state (configuration and counters).
KdaMockState *kda_mock_state(void);
/// Resets counters and configuration to the environment's defaults.
void kda_mock_reset(void);
}

#endif // KDA_RUNTIME_TEST_MOCKCUDA_H
