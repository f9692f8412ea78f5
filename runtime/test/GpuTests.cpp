//===- GpuTests.cpp - the runtime on a real GPU ---------------------------===//
//
// kda-runtime-test --gpu BUNDLE: with the real driver, checks that a rejected
// launch writes nothing on the device, that a launch on a user stream writes
// every output element, that a launch captured in a CUDA graph replays to
// bit-identical results, and that launches from several threads (each with
// its own stream and outputs, and no current context) agree bit for bit.
// Inputs are small values exactly representable in every float dtype.
//
//===----------------------------------------------------------------------===//

#include "TestBundles.h"
#include "Tests.h"

#include "kda/Reference/StageTensors.h"

#include <atomic>
#include <cstring>
#include <thread>

namespace kda::rt::test {

namespace {

using cu::CUdeviceptr;

uint16_t toHalf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000;
  int32_t exp = static_cast<int32_t>((u >> 23) & 0xFF) - 127 + 15;
  uint32_t mant = (u >> 13) & 0x3FF;
  if ((u & 0x7FFFFFFF) == 0)
    return static_cast<uint16_t>(sign);
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exp) << 10) |
                               mant);
}

/// Element i of a test input: one of -7/8 ... 0, exact in bf16 and f16.
float inputValue(size_t i) { return -static_cast<float>((i * 7 + 3) % 8) / 8; }

struct DeviceTensor {
  TensorArg arg;
  size_t bytes = 0;
  CUdeviceptr ptr = 0;
  std::vector<unsigned char> host;
};

struct GpuCase {
  const Driver *d = nullptr;
  const Program *p = nullptr;
  std::vector<DeviceTensor> tensors;
  std::vector<int64_t> cu;
  CUdeviceptr workspace = 0;
  size_t workspaceBytes = 0;

  LaunchArgs args(std::vector<TensorArg> &storage) const {
    storage.clear();
    for (const DeviceTensor &t : tensors)
      storage.push_back(t.arg);
    LaunchArgs a;
    a.tensors = storage.data();
    a.numTensors = storage.size();
    if (!cu.empty()) {
      a.cuSeqlensHost = cu.data();
      a.numCuSeqlensHost = cu.size();
    }
    a.workspace = reinterpret_cast<void *>(workspace);
    a.workspaceBytes = workspaceBytes;
    return a;
  }
};

/// Reads every output back, concatenated.
bool readOutputs(const GpuCase &c, const std::vector<TensorArg> &args,
                 std::vector<unsigned char> &out) {
  out.clear();
  const Manifest &m = c.p->manifest();
  for (size_t i = static_cast<size_t>(m.numInputs); i < m.args.size(); ++i) {
    size_t n = c.tensors[i].bytes;
    size_t at = out.size();
    out.resize(at + n);
    if (n && c.d->cuMemcpyDtoH_v2(out.data() + at,
                                  reinterpret_cast<uintptr_t>(args[i].data),
                                  n) != 0)
      return false;
  }
  return true;
}

/// Sets every output byte to 0xFF and waits for it (memsets and copies
/// run on the legacy default stream, which non-blocking streams ignore).
bool resetOutputs(const GpuCase &c, const std::vector<TensorArg> &args) {
  const Manifest &m = c.p->manifest();
  for (size_t i = static_cast<size_t>(m.numInputs); i < m.args.size(); ++i)
    if (c.tensors[i].bytes &&
        c.d->cuMemsetD8_v2(reinterpret_cast<uintptr_t>(args[i].data), 0xFF,
                           c.tensors[i].bytes) != 0)
      return false;
  return c.d->cuStreamSynchronize(nullptr) == 0;
}

} // namespace

void runGpuTests(Harness &h, const std::string &path) {
  std::string name = "gpu/" + path.substr(path.find_last_of('/') + 1);
  std::unique_ptr<Program> p;
  Status s = Program::load(path, p);
  h.expectOk(name + "/load", s);
  if (!s)
    return;
  const Driver *d = nullptr;
  s = p->driver(d);
  h.expectOk(name + "/driver", s);
  if (!s)
    return;
  cu::CUcontext context = nullptr;
  if (Status c = d->primaryContext(0, context); !c) {
    h.record(name + "/context", false, c.message());
    return;
  }
  d->cuCtxSetCurrent(context);
  Driver::DeviceInfo info;
  (void)d->deviceInfo(0, info);
  h.record(name + "/device", true,
           info.name + ", sm_" + std::to_string(info.ccMajor) +
               std::to_string(info.ccMinor) + ", driver " +
               std::to_string(d->version()));
  s = p->prepare();
  h.expectOk(name + "/prepare", s);
  if (!s)
    return;

  // Shapes: B = 2 (1 with cu_seqlens), T = 300, N1 = 4, N (state slots) =
  // the number of sequences, NT (chunk slots of h) = their chunk count, NC
  // (chunk program slots of decay_last) = numChunkPrograms, other symbols 4.
  const Manifest &m = p->manifest();
  GpuCase c;
  c.d = d;
  c.p = p.get();
  bool varlen = m.cuSeqlensArg >= 0;
  if (varlen)
    c.cu = {0, 1, 100, 300};
  const int64_t batch = varlen ? 1 : 2, tokens = 300;
  const int64_t sequences =
      varlen ? static_cast<int64_t>(c.cu.size()) - 1 : batch;
  int64_t chunk = 64;
  if (const std::string *k = m.key("chunk"))
    chunk = std::stoll(*k);
  auto symbolValue = [&](const std::string &sym) -> int64_t {
    if (sym == "B")
      return batch;
    if (sym == "T")
      return tokens;
    if (sym == "N1")
      return static_cast<int64_t>(c.cu.size());
    if (sym == "N")
      return sequences;
    if (sym == "NC")
      return kda::ref::numChunkPrograms(tokens, chunk, varlen, sequences);
    if (sym == "NT") {
      int64_t chunks = 0;
      if (!varlen)
        return (tokens + chunk - 1) / chunk;
      for (size_t i = 1; i < c.cu.size(); ++i)
        chunks += (c.cu[i] - c.cu[i - 1] + chunk - 1) / chunk;
      return chunks;
    }
    return 4;
  };
  bool allocated = true;
  for (const ArgSpec &a : m.args) {
    DeviceTensor t;
    t.arg.dtype = a.dtype;
    t.arg.rank = a.rank();
    for (int i = 0; i < a.rank(); ++i)
      t.arg.dims[i] = a.dims[i].isStatic() ? a.dims[i].size
                                           : symbolValue(m.symbols[a.dims[i].symbol]);
    t.bytes = static_cast<size_t>(t.arg.numElements()) * dtypeSize(a.dtype);
    t.host.assign(t.bytes, 0xFF);
    if (a.role == ArgRole::Input) {
      size_t n = static_cast<size_t>(t.arg.numElements());
      for (size_t i = 0; i < n; ++i) {
        float v = inputValue(i);
        unsigned char *dst = t.host.data() + i * dtypeSize(a.dtype);
        if (a.index == m.cuSeqlensArg) {
          std::memcpy(dst, &c.cu[i], 8);
        } else if (a.dtype == DType::F32) {
          std::memcpy(dst, &v, 4);
        } else if (a.dtype == DType::BF16) {
          uint32_t u;
          std::memcpy(&u, &v, 4);
          uint16_t b = static_cast<uint16_t>(u >> 16);
          std::memcpy(dst, &b, 2);
        } else if (a.dtype == DType::F16) {
          uint16_t b = toHalf(v);
          std::memcpy(dst, &b, 2);
        } else if (a.dtype == DType::I64) {
          int64_t x = static_cast<int64_t>(i % 8);
          std::memcpy(dst, &x, 8);
        } else {
          int32_t x = static_cast<int32_t>(i % 8);
          std::memcpy(dst, &x, 4);
        }
      }
    }
    if (t.bytes) {
      allocated &= d->cuMemAlloc_v2(&t.ptr, t.bytes) == 0 &&
                   d->cuMemcpyHtoD_v2(t.ptr, t.host.data(), t.bytes) == 0;
      t.arg.data = reinterpret_cast<void *>(t.ptr);
    }
    c.tensors.push_back(std::move(t));
  }
  std::vector<TensorArg> storage;
  LaunchArgs la = c.args(storage);
  size_t wsBytes = 0;
  s = p->workspaceSize(storage.data(), storage.size(), wsBytes);
  h.expectOk(name + "/workspace-size", s);
  if (wsBytes) {
    allocated &= d->cuMemAlloc_v2(&c.workspace, wsBytes) == 0;
    c.workspaceBytes = wsBytes;
  }
  allocated &= d->cuStreamSynchronize(nullptr) == 0; // uploads done
  h.record(name + "/allocate", allocated);
  if (!allocated || !s)
    return;
  la = c.args(storage);

  // 1. A rejected launch writes nothing.
  size_t out = m.args.size() - 1;
  std::vector<TensorArg> shifted = storage;
  shifted[out].data = static_cast<char *>(shifted[out].data) + 4;
  LaunchArgs bad = la;
  bad.tensors = shifted.data();
  s = p->launch(bad, nullptr);
  std::vector<unsigned char> before, after;
  bool read = d->cuCtxSetCurrent(context) == 0 &&
              d->cuStreamSynchronize(nullptr) == 0 &&
              readOutputs(c, storage, after);
  bool untouched = read;
  for (unsigned char b : after)
    untouched &= b == 0xFF;
  h.record(name + "/rejected-launch-writes-nothing",
           !s && s.code() == ErrorCode::InvalidArgument && untouched,
           s.message());

  // 2. A launch on a user stream writes every output element.
  cu::CUstream stream = nullptr;
  d->cuStreamCreate(&stream, cu::CU_STREAM_NON_BLOCKING);
  s = p->launch(la, stream);
  Status sync = d->check(d->cuStreamSynchronize(stream), "cuStreamSynchronize");
  std::vector<unsigned char> first;
  read = s && sync && readOutputs(c, storage, first);
  // Outputs listed in the key `partial` are not all written by design.
  std::string partial;
  if (const std::string *v = m.key("partial"))
    partial = "," + *v + ",";
  size_t unwritten = 0;
  if (read) {
    size_t at = 0;
    for (size_t a = static_cast<size_t>(m.numInputs); a < m.args.size(); ++a) {
      size_t n = c.tensors[a].bytes;
      if (partial.find("," + m.args[a].name + ",") == std::string::npos) {
        const unsigned char *q = first.data() + at;
        for (size_t i = 0; i + 4 <= n; i += 4)
          unwritten += std::memcmp(q + i, "\xff\xff\xff\xff", 4) == 0;
      }
      at += n;
    }
  }
  h.record(name + "/launch-on-stream", read && unwritten == 0,
           !s ? s.message()
              : !sync ? sync.message()
                      : std::to_string(unwritten) + " words left unwritten");

  // 3. Captured in a CUDA graph, replayed: bit-identical.
  bool graphOk = d->cuStreamBeginCapture_v2 && d->cuGraphLaunch;
  std::string graphDetail;
  if (graphOk) {
    cu::CUgraph graph = nullptr;
    cu::CUgraphExec exec = nullptr;
    graphOk = resetOutputs(c, storage) &&
              d->cuStreamBeginCapture_v2(
                  stream, cu::CU_STREAM_CAPTURE_MODE_GLOBAL) == 0;
    Status captured = p->launch(la, stream);
    cu::CUresult end = d->cuStreamEndCapture(stream, &graph);
    graphOk = graphOk && captured && end == 0 &&
              d->cuGraphInstantiateWithFlags(&exec, graph, 0) == 0 &&
              d->cuGraphLaunch(exec, stream) == 0 &&
              d->cuGraphLaunch(exec, stream) == 0 &&
              d->cuStreamSynchronize(stream) == 0 &&
              readOutputs(c, storage, after) && after == first;
    graphDetail = captured ? d->errorName(end) : captured.message();
    if (exec)
      d->cuGraphExecDestroy(exec);
    if (graph)
      d->cuGraphDestroy(graph);
  } else {
    graphDetail = "the driver lacks the graph API";
  }
  h.record(name + "/cuda-graph-replay-identical", graphOk, graphDetail);

  // 4. Several threads, each with its own stream and outputs.
  const int kThreads = 4;
  std::vector<std::vector<TensorArg>> perThread(kThreads, storage);
  std::vector<CUdeviceptr> extra;
  for (auto &args : perThread)
    for (size_t i = static_cast<size_t>(m.numInputs); i < m.args.size(); ++i)
      if (c.tensors[i].bytes) {
        CUdeviceptr ptr = 0;
        allocated &= d->cuMemAlloc_v2(&ptr, c.tensors[i].bytes) == 0;
        args[i].data = reinterpret_cast<void *>(ptr);
        extra.push_back(ptr);
      }
  for (auto &args : perThread)
    allocated &= resetOutputs(c, args);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // No current context here: the runtime uses device 0's primary one.
      cu::CUstream mine = nullptr;
      if (p->prepare().isOk() &&
          d->cuStreamCreate(&mine, cu::CU_STREAM_NON_BLOCKING) == 0) {
        LaunchArgs a = la;
        a.tensors = perThread[t].data();
        for (int i = 0; i < 20; ++i)
          if (!p->launch(a, mine))
            ++failures;
        if (d->cuStreamSynchronize(mine) != 0)
          ++failures;
        d->cuStreamDestroy_v2(mine);
      } else {
        ++failures;
      }
    });
  for (std::thread &t : threads)
    t.join();
  bool same = allocated && failures == 0;
  for (int t = 0; t < kThreads && same; ++t)
    same = readOutputs(c, perThread[t], after) && after == first;
  h.record(name + "/threads-identical", same,
           std::to_string(failures.load()) + " failed launches");

  d->cuStreamDestroy_v2(stream);
  for (CUdeviceptr ptr : extra)
    d->cuMemFree_v2(ptr);
  for (DeviceTensor &t : c.tensors)
    if (t.ptr)
      d->cuMemFree_v2(t.ptr);
  if (c.workspace)
    d->cuMemFree_v2(c.workspace);
}

} // namespace kda::rt::test
