//===- ForwardTests.cpp - the forward API (kda_forward.h) -----------------===//
//
// A hand-written program=chunk_fwd bundle (q, k, v, g, beta, initial_state,
// cu_seqlens -> o, final_state; one workspace) on the mock driver: tensors
// passed by role reach the right arguments, and a missing, unexpected or
// wrong tensor is rejected with its name before anything is launched.
//
//===----------------------------------------------------------------------===//

#include "MockCuda.h"
#include "TestBundles.h"
#include "Tests.h"

#include "kda_forward.h"

#include <cstdlib>
#include <cstring>

namespace kda::rt::test {

namespace {

const char *const kForwardManifest = R"(abi 1
chip sm_90
entry fwd
key program=chunk_fwd K=8 V=8 chunk=64
arg 0 q input bf16 B,T,H,8
arg 1 k input bf16 B,T,H,8
arg 2 v input bf16 B,T,HV,8
arg 3 g input f32 B,T,HV,8
arg 4 beta input f32 B,T,HV
arg 5 initial_state input f32 N,HV,8,8
arg 6 cu_seqlens input i64 N1
arg 7 o output bf16 B,T,HV,8
arg 8 final_state output f32 N,HV,8,8
workspace G mul(mul(dim(3,1),dim(3,2)),32)
kernel fwd_k
block 128 1 1
shared 0
grid ceildiv(dim(0,1),64) dim(2,2) 1
param arg 0
param arg 3
param arg 7
param arg 8
param workspace G f32 dim(3,0),dim(3,1),dim(3,2),8
end-kernel
)";

kda_tensor tensorOf(void *data, kda_dtype dtype,
                    std::initializer_list<int64_t> dims) {
  kda_tensor t;
  std::memset(&t, 0, sizeof t);
  t.data = data;
  t.dtype = dtype;
  for (int64_t d : dims)
    t.dims[t.rank++] = d;
  return t;
}

void expectRejected(Harness &h, const std::string &name, kda_status got,
                    const std::string &needle) {
  std::string message = kda_last_error();
  bool ok = got == KDA_ERROR_INVALID_ARGUMENT &&
            message.find(needle) != std::string::npos;
  h.record("forward/" + name, ok,
           ok ? message
              : std::string(kda_status_name(got)) + " '" + message +
                    "', expected '" + needle + "'");
}

} // namespace

void runForwardTests(Harness &h) {
  std::string image = makeBundle(kForwardManifest);
  kda_program *p = nullptr;
  kda_status s = kda_program_load_memory(image.data(), image.size(), &p);
  h.record("forward/load", s == KDA_OK && p, kda_last_error());
  if (!p)
    return;

  // T = 100 packed into two sequences, H = 2, HV = 4.
  const int64_t T = 100, H = 2, HV = 4;
  Buffer q(T * H * 8 * 2), k(T * H * 8 * 2), v(T * HV * 8 * 2),
      g(T * HV * 8 * 4), beta(T * HV * 4), h0(2 * HV * 64 * 4), cu(3 * 8),
      o(T * HV * 8 * 2), ht(2 * HV * 64 * 4), ws(1 << 16);
  std::vector<int64_t> cuHost = {0, 40, 100};
  std::memcpy(cu.data, cuHost.data(), 3 * sizeof(int64_t));
  kda_forward_tensors t;
  std::memset(&t, 0, sizeof t);
  t.q = tensorOf(q.data, KDA_BF16, {1, T, H, 8});
  t.k = tensorOf(k.data, KDA_BF16, {1, T, H, 8});
  t.v = tensorOf(v.data, KDA_BF16, {1, T, HV, 8});
  t.g = tensorOf(g.data, KDA_F32, {1, T, HV, 8});
  t.beta = tensorOf(beta.data, KDA_F32, {1, T, HV});
  t.initial_state = tensorOf(h0.data, KDA_F32, {2, HV, 8, 8});
  t.cu_seqlens = tensorOf(cu.data, KDA_I64, {3});
  t.cu_seqlens_host = cuHost.data();
  t.o = tensorOf(o.data, KDA_BF16, {1, T, HV, 8});
  t.final_state = tensorOf(ht.data, KDA_F32, {2, HV, 8, 8});

  size_t bytes = 0;
  s = kda_forward_workspace_size(p, &t, &bytes);
  h.record("forward/workspace-size",
           s == KDA_OK && bytes == static_cast<size_t>(T * HV * 32),
           std::to_string(bytes) + " " + kda_last_error());

  MockInstance mock = freshMock("forward");
  const char *saved = std::getenv("KDA_CUDA_DRIVER");
  std::string savedValue = saved ? saved : "";
  setenv("KDA_CUDA_DRIVER", mock.path.c_str(), 1);

  // Rejections: by name, nothing launched, nothing written.
  kda_forward_tensors missing = t;
  missing.initial_state.rank = 0;
  expectRejected(h, "missing-initial-state",
                 kda_forward(p, &missing, ws.data, ws.bytes, nullptr),
                 "the bundle takes 'initial_state', which was not passed");
  kda_forward_tensors extra = t;
  extra.a_log = tensorOf(h0.data, KDA_F32, {HV});
  expectRejected(h, "unexpected-a-log",
                 kda_forward(p, &extra, ws.data, ws.bytes, nullptr),
                 "'a_log' was passed, but the bundle was compiled without it");
  kda_forward_tensors wrongShape = t;
  wrongShape.v.dims[2] = 3;
  expectRejected(h, "shape", kda_forward(p, &wrongShape, ws.data, ws.bytes,
                                         nullptr),
                 "'v'");
  expectRejected(h, "null-tensors", kda_forward(p, nullptr, ws.data, ws.bytes,
                                                nullptr),
                 "null program or tensors");
  h.record("forward/rejections-nothing-done",
           mock.state->launches == 0 && o.untouched() && ht.untouched());

  s = kda_forward(p, &t, ws.data, ws.bytes, nullptr);
  h.record("forward/launch", s == KDA_OK && mock.state->launches == 1,
           kda_last_error());
  if (saved)
    setenv("KDA_CUDA_DRIVER", savedValue.c_str(), 1);
  else
    unsetenv("KDA_CUDA_DRIVER");
  kda_program_destroy(p);

  // The default bundles compiled into the library load by name and compute
  // the whole forward; an unknown name lists them.
  std::string names = kda_forward_default_names();
  size_t start = 0;
  while (!names.empty() && start <= names.size()) {
    size_t comma = names.find(", ", start);
    std::string name = names.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    kda_program *d = nullptr;
    bool ok = kda_forward_default_program(name.c_str(), &d) == KDA_OK && d &&
              std::strcmp(kda_program_key(d, "program"), "chunk_fwd") == 0;
    h.record("forward/default-" + name, ok, kda_last_error());
    kda_program_destroy(d);
    if (comma == std::string::npos)
      break;
    start = comma + 2;
  }
  kda_program *none = nullptr;
  expectRejected(h, "default-unknown",
                 kda_forward_default_program("nope", &none),
                 names.empty() ? "the library was built without default bundles"
                               : "no default bundle 'nope' (the library has " +
                                     names + ")");

  // A bundle of another program is not a forward.
  std::string scale = makeBundle(kScaleManifest);
  s = kda_program_load_memory(scale.data(), scale.size(), &p);
  if (s == KDA_OK) {
    expectRejected(h, "not-a-forward",
                   kda_forward_workspace_size(p, &t, &bytes),
                   "the bundle computes program=scale, not the whole forward");
    kda_program_destroy(p);
  }
}

} // namespace kda::rt::test
