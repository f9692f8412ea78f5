//===- Device.cpp - the GPU side of kda-run -------------------------------===//

#include "Device.h"

#include <algorithm>

namespace kda::run {

using rt::Status;
using rt::cu::CUdeviceptr;

GpuSession::~GpuSession() {
  if (!d)
    return;
  for (CUdeviceptr p : buffers)
    (void)d->cuMemFree_v2(p);
  if (stream)
    (void)d->cuStreamDestroy_v2(stream);
}

Status GpuSession::open(const rt::Program &p) {
  program = &p;
  if (Status s = p.driver(d); !s)
    return s;
  rt::cu::CUcontext context = nullptr;
  if (Status s = d->primaryContext(0, context); !s)
    return s;
  if (Status s = d->check(d->cuCtxSetCurrent(context), "cuCtxSetCurrent"); !s)
    return s;
  rt::cu::CUdevice device;
  if (Status s = d->check(d->cuDeviceGet(&device, 0), "cuDeviceGet"); !s)
    return s;
  if (Status s = d->deviceInfo(device, info); !s)
    return s;
  // A blocking stream: it is ordered after the (legacy default stream)
  // copies that upload the inputs.
  if (Status s = d->check(d->cuStreamCreate(&stream, 0), "cuStreamCreate");
      !s)
    return s;
  // Load (JIT) the module now, so that its errors come first and its time
  // is not part of the first run.
  return p.prepare();
}

Status GpuSession::alloc(size_t bytes, CUdeviceptr &ptr) {
  ptr = 0;
  if (bytes == 0)
    return Status::ok();
  if (Status s = d->check(d->cuMemAlloc_v2(&ptr, bytes),
                          ("cuMemAlloc of " + std::to_string(bytes) +
                           " bytes")
                              .c_str());
      !s)
    return s;
  buffers.push_back(ptr);
  return Status::ok();
}

Status GpuSession::upload(std::vector<HostTensor> &host, rt::LaunchArgs &args,
                          const std::vector<int64_t> &cuSeqlens) {
  tensors.clear();
  argPointers.clear();
  for (HostTensor &t : host) {
    CUdeviceptr ptr;
    if (Status s = alloc(t.bytes(), ptr); !s)
      return s;
    if (ptr)
      if (Status s = d->check(d->cuMemcpyHtoD_v2(ptr, t.data(), t.bytes()),
                              "cuMemcpyHtoD");
          !s)
        return s;
    argPointers.push_back(ptr);
    tensors.push_back(t.arg(reinterpret_cast<void *>(ptr)));
    if (!ptr)
      tensors.back().data = nullptr;
  }
  // Copies from pageable memory may still be in flight on the legacy default
  // stream when cuMemcpyHtoD returns.
  if (Status s = d->check(d->cuStreamSynchronize(nullptr),
                          "cuStreamSynchronize");
      !s)
    return s;
  cuHost = cuSeqlens;
  args = rt::LaunchArgs();
  args.tensors = tensors.data();
  args.numTensors = tensors.size();
  if (!cuHost.empty()) {
    args.cuSeqlensHost = cuHost.data();
    args.numCuSeqlensHost = cuHost.size();
  }
  size_t wsBytes = 0;
  if (Status s = program->workspaceSize(tensors.data(), tensors.size(),
                                        wsBytes);
      !s)
    return s;
  CUdeviceptr ws;
  if (Status s = alloc(wsBytes, ws); !s)
    return s;
  args.workspace = reinterpret_cast<void *>(ws);
  args.workspaceBytes = wsBytes;
  return Status::ok();
}

Status GpuSession::run(const rt::LaunchArgs &args) {
  if (Status s = program->launch(args, stream); !s)
    return s;
  return d->check(d->cuStreamSynchronize(stream),
                  "running the kernels (cuStreamSynchronize)");
}

Status GpuSession::download(std::vector<HostTensor> &host) {
  const rt::Manifest &m = program->manifest();
  for (size_t i = static_cast<size_t>(m.numInputs); i < host.size(); ++i)
    if (argPointers[i])
      if (Status s = d->check(d->cuMemcpyDtoH_v2(host[i].data(), argPointers[i],
                                                 host[i].bytes()),
                              "cuMemcpyDtoH");
          !s)
        return s;
  return Status::ok();
}

Status GpuSession::bench(const rt::LaunchArgs &args, int &runs, double &median,
                         double &min, double &max, size_t first,
                         size_t count) {
  auto launch = [&] {
    return program->launchKernels(args, stream, first, count);
  };
  // Warm-up, and one timed run to size the loop.
  for (int i = 0; i < 3; ++i)
    if (Status s = launch(); !s)
      return s;
  std::vector<rt::cu::CUevent> events;
  auto cleanup = [&] {
    for (rt::cu::CUevent e : events)
      if (e)
        (void)d->cuEventDestroy_v2(e);
  };
  // `n` fresh events (those created before a failure are left to cleanup).
  auto createEvents = [&](size_t n) {
    events.assign(n, nullptr);
    for (auto &e : events)
      if (Status s = d->check(d->cuEventCreate(&e, rt::cu::CU_EVENT_DEFAULT),
                              "cuEventCreate");
          !s)
        return s;
    return Status::ok();
  };
  // Waits until the stream has passed event `e`.
  auto waitFor = [&](rt::cu::CUevent e) {
    return d->check(d->cuEventSynchronize(e),
                    "running the kernels (cuEventSynchronize)");
  };
  if (Status s = createEvents(2); !s) {
    cleanup();
    return s;
  }
  float ms = 0;
  d->cuEventRecord(events[0], stream);
  (void)launch();
  d->cuEventRecord(events[1], stream);
  if (Status s = waitFor(events[1]); !s) {
    cleanup();
    return s;
  }
  d->cuEventElapsedTime(&ms, events[0], events[1]);
  runs = static_cast<int>(std::clamp(300.0 / std::max(ms, 1e-3f), 50.0, 1000.0));
  cleanup();

  // Flush L2 before each run: write a buffer twice its size (one buffer
  // for every bench of the session).
  if (!flushBuffer) {
    flushBytes = std::max<size_t>(2 * static_cast<size_t>(info.l2Bytes),
                                  8u << 20);
    if (Status s = alloc(flushBytes, flushBuffer); !s)
      return s;
  }
  if (Status s = createEvents(2 * static_cast<size_t>(runs)); !s) {
    cleanup();
    return s;
  }
  for (int i = 0; i < runs; ++i) {
    d->cuMemsetD8Async(flushBuffer, static_cast<unsigned char>(i), flushBytes,
                       stream);
    d->cuEventRecord(events[2 * i], stream);
    if (Status s = launch(); !s) {
      cleanup();
      return s;
    }
    d->cuEventRecord(events[2 * i + 1], stream);
  }
  if (Status s = waitFor(events.back()); !s) {
    cleanup();
    return s;
  }
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    float t = 0;
    d->cuEventElapsedTime(&t, events[2 * i], events[2 * i + 1]);
    times.push_back(t);
  }
  cleanup();
  std::sort(times.begin(), times.end());
  median = runs % 2 ? times[runs / 2]
                    : 0.5 * (times[runs / 2 - 1] + times[runs / 2]);
  min = times.front();
  max = times.back();
  return Status::ok();
}

} // namespace kda::run
