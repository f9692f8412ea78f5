//===- Device.h - the GPU side of kda-run ------------------------*- C++ -*-===//

#ifndef KDA_RUN_DEVICE_H
#define KDA_RUN_DEVICE_H

#include "HostTensor.h"

#include "kda/Runtime/Program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kda::run {

/// Device 0 with its primary context current, device buffers for every
/// argument and the workspace, and one stream. Frees everything on
/// destruction.
class GpuSession {
public:
  ~GpuSession();
  /// Opens the program's driver and device 0 (errors: no driver or device)
  /// and loads the program's module.
  rt::Status open(const rt::Program &program);
  const rt::Driver::DeviceInfo &device() const { return info; }
  /// Allocates and uploads every argument (outputs keep their NaN fill) and
  /// the workspace; fills `args` for launches.
  rt::Status upload(std::vector<HostTensor> &host, rt::LaunchArgs &args,
                    const std::vector<int64_t> &cuSeqlens);
  /// Launches on the session's stream and waits.
  rt::Status run(const rt::LaunchArgs &args);
  /// Copies the outputs back.
  rt::Status download(std::vector<HostTensor> &host);
  /// Median, min and max milliseconds of `runs` timed launches (CUDA events
  /// around each, L2 flushed before each), after warm-up. With `count`
  /// given, each launch runs only the kernels [first, first + count).
  rt::Status bench(const rt::LaunchArgs &args, int &runs, double &median,
                   double &min, double &max, size_t first = 0,
                   size_t count = SIZE_MAX);

private:
  rt::Status alloc(size_t bytes, rt::cu::CUdeviceptr &ptr);
  const rt::Program *program = nullptr;
  const rt::Driver *d = nullptr;
  rt::Driver::DeviceInfo info;
  rt::cu::CUstream stream = nullptr;
  std::vector<rt::cu::CUdeviceptr> buffers;
  std::vector<rt::TensorArg> tensors;
  std::vector<rt::cu::CUdeviceptr> argPointers;
  std::vector<int64_t> cuHost;
  /// The buffer bench() writes to flush L2 (twice its size), allocated on
  /// the first bench.
  rt::cu::CUdeviceptr flushBuffer = 0;
  size_t flushBytes = 0;
};

} // namespace kda::run

#endif // KDA_RUN_DEVICE_H
