//===- CApiTests.cpp - the C API ------------------------------------------===//

#include "MockCuda.h"
#include "TestBundles.h"
#include "Tests.h"

#include "kda_runtime.h"

#include <cstdlib>
#include <cstring>

extern "C" int kda_test_c_header(void);

namespace kda::rt::test {

namespace {

kda_tensor ctensor(void *data, kda_dtype dtype,
                   std::initializer_list<int64_t> dims) {
  kda_tensor t;
  std::memset(&t, 0, sizeof t);
  t.data = data;
  t.dtype = dtype;
  for (int64_t d : dims)
    t.dims[t.rank++] = d;
  return t;
}

void expectStatus(Harness &h, const std::string &name, kda_status got,
                  kda_status want, const std::string &needle) {
  std::string message = kda_last_error();
  bool ok = got == want && message.find(needle) != std::string::npos;
  h.record("capi/" + name, ok,
           ok ? message
              : std::string("got ") + kda_status_name(got) + " '" + message +
                    "', expected " + kda_status_name(want) + " '" + needle +
                    "'");
}

/// KDA_LOAD_REFUSE_CPU: a program loaded with it never loads its CPU build.
void refuseCpuTests(Harness &h) {
  std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n" +
                    ptxEntry("test_scale_k", 18);
  std::string image =
      makeBundle({{"manifest", kScaleManifest},
                  {"ptx", ptx},
                  {"cpu", readFile(fakeCpuSectionPath())}});
  const int64_t n = 2 * 3 * 4;
  Buffer x(n * 4), y(n * 4, 0xFF);
  for (int64_t i = 0; i < n; ++i)
    static_cast<float *>(x.data)[i] = static_cast<float>(i);
  kda_tensor t[2] = {ctensor(x.data, KDA_F32, {2, 3, 4}),
                     ctensor(y.data, KDA_F32, {2, 3, 4})};
  kda_launch_args la;
  std::memset(&la, 0, sizeof la);
  la.tensors = t;
  la.num_tensors = 2;

  kda_program *p = nullptr;
  kda_status s = kda_program_load_memory_flags(image.data(), image.size(),
                                               KDA_LOAD_REFUSE_CPU, &p);
  h.record("capi/load-refuse-cpu", s == KDA_OK && p, kda_last_error());
  if (p) {
    expectStatus(h, "run-cpu-refused", kda_program_run_cpu(p, &la),
                 KDA_ERROR_UNSUPPORTED, "CPU builds are refused here");
    h.record("capi/run-cpu-refused-nothing-written", y.untouched());
    kda_program_destroy(p);
  }
  p = nullptr;
  s = kda_program_load_memory_flags(image.data(), image.size(), 0, &p);
  h.record("capi/load-flags-0", s == KDA_OK && p, kda_last_error());
  if (p) {
    s = kda_program_run_cpu(p, &la);
    bool ok = s == KDA_OK;
    for (int64_t i = 0; i < n && ok; ++i)
      ok = static_cast<float *>(y.data)[i] == 2.0f * i + 1.0f;
    h.record("capi/run-cpu-allowed", ok, kda_last_error());
    kda_program_destroy(p);
  }
  p = nullptr;
  expectStatus(h, "load-unknown-flags",
               kda_program_load_memory_flags(image.data(), image.size(), 0x80,
                                             &p),
               KDA_ERROR_INVALID_ARGUMENT, "unknown load flags 0x80");
  expectStatus(h, "load-file-unknown-flags",
               kda_program_load_flags("/nonexistent/x.kdab",
                                      KDA_LOAD_REFUSE_CPU | 0x100, &p),
               KDA_ERROR_INVALID_ARGUMENT, "unknown load flags 0x101");
  h.record("capi/unknown-flags-null-program", p == nullptr);
}

} // namespace

void runCApiTests(Harness &h) {
  h.record("capi/header-compiles-as-c", kda_test_c_header() == 11);
  refuseCpuTests(h);
  kda_program *p = nullptr;
  std::string bad = "KDA-BUNDLE 1\nsection ptx 50\nabc\nend\n";
  expectStatus(h, "load-bad-bundle",
               kda_program_load_memory(bad.data(), bad.size(), &p),
               KDA_ERROR_INVALID_BUNDLE, "truncated bundle");
  h.record("capi/load-bad-bundle-null-program", p == nullptr);
  expectStatus(h, "load-missing-file",
               kda_program_load("/nonexistent/x.kdab", &p), KDA_ERROR_IO,
               "cannot open '/nonexistent/x.kdab'");
  std::string v2 = makeBundle({{"manifest", "abi 2\n"}}, 2);
  expectStatus(h, "load-abi-2", kda_program_load_memory(v2.data(), v2.size(), &p),
               KDA_ERROR_UNSUPPORTED_ABI, "bundle ABI version 2");
  expectStatus(h, "load-null", kda_program_load(nullptr, &p),
               KDA_ERROR_INVALID_ARGUMENT, "null path");

  std::string image = makeBundle(kFullManifest);
  kda_status s = kda_program_load_memory(image.data(), image.size(), &p);
  h.record("capi/load", s == KDA_OK && p, kda_last_error());
  if (!p)
    return;
  int32_t dtype = -1, rank = -1;
  bool ok = std::strcmp(kda_program_entry(p), "test_full") == 0 &&
            std::strcmp(kda_program_key(p, "K"), "8") == 0 &&
            kda_program_key(p, "V") == nullptr &&
            kda_program_num_args(p) == 4 && kda_program_num_inputs(p) == 3 &&
            std::strcmp(kda_program_arg_name(p, 2), "cu_seqlens") == 0 &&
            kda_program_arg_name(p, 4) == nullptr &&
            kda_program_arg_index(p, "o") == 3 &&
            kda_program_arg_index(p, "nope") == -1 &&
            kda_program_arg_info(p, 1, &dtype, &rank) == KDA_OK &&
            dtype == KDA_BF16 && rank == 4 &&
            kda_program_arg_info(p, 9, &dtype, &rank) ==
                KDA_ERROR_INVALID_ARGUMENT;
  h.record("capi/introspection", ok);
  h.record("capi/status-names",
           std::strcmp(kda_status_name(KDA_ERROR_NO_DEVICE), "no CUDA device") ==
                   0 &&
               std::strcmp(kda_status_name(static_cast<kda_status>(42)),
                           "unknown status") == 0);

  FullArgs a(128, 2, 4, {0, 50, 128});
  kda_tensor t[4] = {ctensor(a.q.data, KDA_BF16, {1, 128, 2, 8}),
                     ctensor(a.g.data, KDA_BF16, {1, 128, 4, 8}),
                     ctensor(a.cu.data, KDA_I64, {3}),
                     ctensor(a.o.data, KDA_F32, {1, 128, 4, 8})};
  size_t bytes = 0;
  s = kda_program_workspace_size(p, t, 4, &bytes);
  h.record("capi/workspace-size", s == KDA_OK && bytes == 2304,
           std::to_string(bytes));

  kda_launch_args la;
  std::memset(&la, 0, sizeof la);
  la.tensors = t;
  la.num_tensors = 4;
  la.cu_seqlens_host = a.cuHost.data();
  la.num_cu_seqlens_host = a.cuHost.size();
  la.workspace = a.ws.data;
  la.workspace_bytes = a.ws.bytes;

  // Rejections: the message, nothing launched, nothing written.
  MockInstance mock = freshMock("capi");
  const char *saved = std::getenv("KDA_CUDA_DRIVER");
  std::string savedValue = saved ? saved : "";
  setenv("KDA_CUDA_DRIVER", mock.path.c_str(), 1);
  t[3].data = static_cast<char *>(a.o.data) + 8;
  expectStatus(h, "launch-misaligned", kda_program_launch(p, &la, nullptr),
               KDA_ERROR_INVALID_ARGUMENT, "argument 3 'o': pointer");
  t[3].data = a.o.data;
  t[1].dtype = 17;
  expectStatus(h, "launch-bad-dtype", kda_program_launch(p, &la, nullptr),
               KDA_ERROR_INVALID_ARGUMENT, "a tensor has an unknown dtype");
  t[1].dtype = KDA_BF16;
  la.num_cu_seqlens_host = 2;
  expectStatus(h, "launch-cu-seqlens", kda_program_launch(p, &la, nullptr),
               KDA_ERROR_INVALID_ARGUMENT,
               "cu_seqlens: the host copy has 2 entries, the tensor 3");
  la.num_cu_seqlens_host = 3;
  la.workspace_bytes = 100;
  expectStatus(h, "launch-workspace", kda_program_launch(p, &la, nullptr),
               KDA_ERROR_INVALID_ARGUMENT,
               "workspace too small: the plan needs 2304 bytes, got 100");
  la.workspace_bytes = a.ws.bytes;
  expectStatus(h, "launch-null-args", kda_program_launch(p, nullptr, nullptr),
               KDA_ERROR_INVALID_ARGUMENT, "null launch arguments");
  expectStatus(h, "launch-null-program",
               kda_program_launch(nullptr, &la, nullptr),
               KDA_ERROR_INVALID_ARGUMENT, "null program");
  h.record("capi/rejections-nothing-done",
           mock.state->calls == 0 && a.o.untouched());

  s = kda_program_launch(p, &la, nullptr);
  h.record("capi/launch", s == KDA_OK && mock.state->launches == 1 &&
                              kda_last_error()[0] == '\0',
           kda_last_error());
  s = kda_program_prepare(p);
  h.record("capi/prepare", s == KDA_OK && mock.state->moduleLoads == 1);
  expectStatus(h, "run-cpu-without-section", kda_program_run_cpu(p, &la),
               KDA_ERROR_UNSUPPORTED, "no cpu section");
  if (saved)
    setenv("KDA_CUDA_DRIVER", savedValue.c_str(), 1);
  else
    unsetenv("KDA_CUDA_DRIVER");
  kda_program_destroy(p);
  kda_program_destroy(nullptr);
  h.record("capi/destroy", mock.state->moduleUnloads == 1);
}

} // namespace kda::rt::test
