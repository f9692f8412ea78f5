//===- ValidateTests.cpp - every validation rule of a launch --------------===//
//
// Each rejected launch must give its message, call no driver function (the
// mock driver counts calls) and leave the output buffer untouched.
//
//===----------------------------------------------------------------------===//

#include "MockCuda.h"
#include "TestBundles.h"
#include "Tests.h"

#include <cstring>
#include <functional>
#include <memory>

namespace kda::rt::test {

namespace {

std::unique_ptr<Program> makeProgram(Harness &h, const std::string &manifest,
                                     const std::string &driverPath) {
  std::unique_ptr<Program> p;
  ProgramOptions options;
  options.driverPath = driverPath;
  Status s = Program::fromMemory(makeBundle(manifest).data(),
                                 makeBundle(manifest).size(), p, options);
  if (!s) {
    h.record("validate/load", false, s.message());
    return nullptr;
  }
  return p;
}

std::string replaceFirst(std::string s, const std::string &from,
                         const std::string &to) {
  size_t at = s.find(from);
  if (at != std::string::npos)
    s.replace(at, from.size(), to);
  return s;
}

struct Rejection {
  Harness &h;
  KdaMockState *mock;

  /// Launches with `args` and expects an InvalidArgument error containing
  /// `needle`, no driver call, and `out` untouched.
  void expect(const std::string &name, const Program &p, const LaunchArgs &args,
              const Buffer &out, const std::string &needle) {
    long calls = mock ? mock->calls : 0;
    Status s = p.launch(args, nullptr);
    bool quiet = (mock ? mock->calls : 0) == calls;
    bool intact = out.untouched();
    bool matches = !s && s.code() == ErrorCode::InvalidArgument &&
                   s.message().find(needle) != std::string::npos;
    std::string detail = s ? "launch succeeded" : s.message();
    if (!matches)
      detail = "expected '" + needle + "', got '" + detail + "'";
    if (!quiet)
      detail += " [the driver was called]";
    if (!intact)
      detail += " [the output was written]";
    h.record("validate/" + name, matches && quiet && intact, detail);
  }
};

} // namespace

void runValidateTests(Harness &h) {
  // A private mock instance: any driver call would show in its counter.
  MockInstance mock = freshMock("validate-driver");
  if (!mock.state) {
    h.record("validate/mock", false, "cannot load the mock driver");
    return;
  }
  auto full = makeProgram(h, kFullManifest, mock.path);
  auto scale = makeProgram(h, kScaleManifest, mock.path);
  if (!full || !scale)
    return;
  Rejection r{h, mock.state};

  // The reference case passes validation.
  {
    FullArgs a(128, 2, 4, {0, 50, 128});
    Plan plan;
    Status s = full->validate(a.args(), plan);
    bool ok = s && plan.symbols[0] == 1 && plan.symbols[1] == 128 &&
              plan.symbols[2] == 2 && plan.symbols[3] == 4 &&
              plan.symbols[4] == 3 && plan.workspaceBytes == 2304 &&
              plan.workspaceOffsets[0] == 0 &&
              plan.workspaceOffsets[1] == 2048 && plan.grids[0][0] == 2 &&
              plan.grids[0][1] == 4 && plan.grids[0][2] == 1;
    h.record("validate/accepts-good-launch", ok, s.message());
    size_t bytes = 0;
    TensorArg shapes[4];
    for (int i = 0; i < 4; ++i) {
      shapes[i] = a.tensors[i];
      shapes[i].data = nullptr;
    }
    s = full->workspaceSize(shapes, 4, bytes);
    h.record("validate/workspace-size", s && bytes == 2304,
             s ? std::to_string(bytes) : s.message());
    int64_t strides[4] = {999, 32, 8, 1};
    a.tensors[1].strides = strides;
    h.expectOk("validate/dense-strides-accepted", full->validate(a.args(), plan));
  }

  auto withFull = [&](const std::string &name, const std::string &needle,
                      std::function<void(FullArgs &, LaunchArgs &)> change,
                      int64_t T = 128, int64_t H = 2, int64_t HV = 4,
                      std::vector<int64_t> cu = {0, 50, 128}) {
    FullArgs a(T, H, HV, cu);
    LaunchArgs la = a.args();
    change(a, la);
    r.expect(name, *full, la, a.o, needle);
  };

  withFull("tensor-count", "expected 4 tensors (q, g, cu_seqlens, o), got 3",
           [](FullArgs &, LaunchArgs &la) { la.numTensors = 3; });
  withFull("null-tensor-array", "expected 4 tensors (q, g, cu_seqlens, o), got 0",
           [](FullArgs &, LaunchArgs &la) { la.tensors = nullptr; });
  withFull("dtype", "argument 1 'g': dtype f16, the bundle's is bf16",
           [](FullArgs &a, LaunchArgs &) { a.tensors[1].dtype = DType::F16; });
  withFull("rank", "argument 3 'o': rank 3, the bundle's is 4 (B,T,HV,8)",
           [](FullArgs &a, LaunchArgs &) { a.tensors[3].rank = 3; });
  withFull("static-dim",
           "argument 1 'g': dimension 3 is 16, the bundle's is 8 (B,T,HV,8)",
           [](FullArgs &a, LaunchArgs &) { a.tensors[1].dims[3] = 16; });
  withFull("negative-dim", "argument 3 'o': dimension 1 is -1",
           [](FullArgs &a, LaunchArgs &) { a.tensors[3].dims[1] = -1; });
  withFull("symbol-mismatch",
           "argument 3 'o': dimension 1 (T) is 100, but T = 128 from argument "
           "0 'q'",
           [](FullArgs &a, LaunchArgs &) { a.tensors[3].dims[1] = 100; });
  static const int64_t badStrides[4] = {1, 1, 1, 1};
  withFull("strides",
           "argument 1 'g': strides 1,1,1,1 are not the dense row-major "
           "strides 4096,32,8,1",
           [](FullArgs &a, LaunchArgs &) { a.tensors[1].strides = badStrides; });
  withFull("null-pointer", "argument 3 'o': null pointer",
           [](FullArgs &a, LaunchArgs &) { a.tensors[3].data = nullptr; });
  withFull("misaligned-pointer", "is not 16-byte aligned",
           [](FullArgs &a, LaunchArgs &) {
             a.tensors[0].data = static_cast<char *>(a.q.data) + 8;
           });
  withFull("misaligned-output", "argument 3 'o': pointer",
           [](FullArgs &a, LaunchArgs &) {
             a.tensors[3].data = static_cast<char *>(a.o.data) + 4;
           });
  withFull("hv-not-multiple-of-h", "HV = 4 is not a multiple of H = 3",
           [](FullArgs &, LaunchArgs &) {}, 128, 3, 4);
  withFull("cu-seqlens-no-host-copy",
           "cu_seqlens: the host copy (cuSeqlensHost) is required",
           [](FullArgs &, LaunchArgs &la) { la.cuSeqlensHost = nullptr; });
  withFull("cu-seqlens-host-length",
           "cu_seqlens: the host copy has 2 entries, the tensor 3",
           [](FullArgs &, LaunchArgs &la) { la.numCuSeqlensHost = 2; });
  withFull("cu-seqlens-one-entry", "cu_seqlens needs at least 2 entries, got 1",
           [](FullArgs &, LaunchArgs &) {}, 128, 2, 4, {128});
  withFull("cu-seqlens-start", "cu_seqlens must start at 0, got 5",
           [](FullArgs &, LaunchArgs &) {}, 128, 2, 4, {5, 50, 128});
  withFull("cu-seqlens-decreasing",
           "cu_seqlens must be non-decreasing: cu_seqlens[2] = 50 < "
           "cu_seqlens[1] = 100",
           [](FullArgs &, LaunchArgs &) {}, 128, 2, 4, {0, 100, 50, 128});
  withFull("cu-seqlens-end", "cu_seqlens must end at T = 128, got 100",
           [](FullArgs &, LaunchArgs &) {}, 128, 2, 4, {0, 50, 100});
  withFull("cu-seqlens-end-beyond", "cu_seqlens must end at T = 128, got 129",
           [](FullArgs &, LaunchArgs &) {}, 128, 2, 4, {0, 50, 129});
  withFull("cu-seqlens-batch", "cu_seqlens needs B = 1, got B = 2",
           [](FullArgs &a, LaunchArgs &) {
             for (int i : {0, 1, 3})
               a.tensors[i].dims[0] = 2;
           });
  withFull("workspace-null",
           "workspace: null pointer, the plan needs 2304 bytes",
           [](FullArgs &, LaunchArgs &la) { la.workspace = nullptr; });
  withFull("workspace-too-small",
           "workspace too small: the plan needs 2304 bytes, got 2000",
           [](FullArgs &, LaunchArgs &la) { la.workspaceBytes = 2000; });
  withFull("workspace-misaligned", "is not 256-byte aligned",
           [](FullArgs &a, LaunchArgs &la) {
             la.workspace = static_cast<char *>(a.ws.data) + 16;
           });
  withFull("grid-limit", "kernel 'test_full_k' grid y = 70000 exceeds 65535",
           [](FullArgs &a, LaunchArgs &) {
             a.tensors[1].dims[2] = 70000; // never dereferenced
             a.tensors[3].dims[2] = 70000;
           });

  // Variants of the scale bundle for plan errors.
  {
    Buffer x(5 * 4 * 4), y(5 * 4 * 4);
    TensorArg t[2] = {TensorArg::make(x.data, DType::F32, {1, 5, 4}),
                      TensorArg::make(y.data, DType::F32, {1, 5, 4})};
    LaunchArgs la;
    la.tensors = t;
    la.numTensors = 2;
    int64_t cu[2] = {0, 5};
    la.cuSeqlensHost = cu;
    la.numCuSeqlensHost = 2;
    r.expect("cu-seqlens-not-taken", *scale, la, y,
             "cu_seqlens given, but the bundle takes none");
    la.cuSeqlensHost = nullptr;
    la.numCuSeqlensHost = 0;

    const std::string grid = "grid ceildiv(mul(dim(0,0),dim(0,1)),32) 1 1";
    struct {
      const char *name, *grid, *needle;
    } cases[] = {
        {"grid-division-by-zero", "grid div(64,sub(dim(0,0),1)) 1 1",
         "kernel 'test_scale_k' grid x: division by zero in "
         "'div(64,sub(dim(0,0),1))'"},
        {"grid-negative", "grid 1 sub(dim(0,1),100) 1",
         "kernel 'test_scale_k' grid y = -95 is negative"},
        {"grid-overflow", "grid 1 1 mul(dim(0,1),4611686018427387904)",
         "kernel 'test_scale_k' grid z: 64-bit overflow in "
         "'mul(dim(0,1),4611686018427387904)'"},
    };
    for (const auto &c : cases) {
      auto p = makeProgram(h, replaceFirst(kScaleManifest, grid, c.grid),
                           mock.path);
      if (p)
        r.expect(c.name, *p, la, y, c.needle);
    }
    TensorArg huge[2] = {
        TensorArg::make(x.data, DType::F32, {1LL << 40, 1LL << 40, 4}),
        TensorArg::make(y.data, DType::F32, {1LL << 40, 1LL << 40, 4})};
    la.tensors = huge;
    r.expect("size-overflow", *scale, la, y, "elements overflow 64 bits");
  }
  {
    auto p = makeProgram(
        h, replaceFirst(kFullManifest, "small 100", "small sub(0,1)"),
        mock.path);
    FullArgs a(128, 2, 4, {0, 50, 128});
    if (p)
      r.expect("workspace-negative", *p, a.args(), a.o,
               "workspace 'small': size -1 is negative");
    p = makeProgram(h,
                    replaceFirst(kFullManifest, "param workspace small i32 25",
                                 "param workspace small i32 26"),
                    mock.path);
    if (p)
      r.expect("workspace-view-too-large", *p, a.args(), a.o,
               "kernel 'test_full_k' parameter 5: a i32 view of workspace "
               "'small' needs 104 bytes, the workspace has 100");
  }
  {
    // State slots: N (sequences of the final state) and NT (chunk slots of
    // h) must match B / cu_seqlens and T / chunk, or kernels would index
    // states out of bounds.
    const char *stateManifest = R"(abi 1
chip sm_90
entry test_state
key program=test chunk=64
arg 0 kg input bf16 B,T,2,8
arg 1 h output bf16 B,NT,2,8,8
arg 2 final_state output f32 N,2,8,8
kernel test_state_k
block 128 1 1
shared 0
grid 1 1 1
param arg 0
param arg 1
param arg 2
end-kernel
)";
    auto fixed = makeProgram(h, stateManifest, mock.path);
    auto varlen = makeProgram(
        h,
        replaceFirst(replaceFirst(stateManifest, "arg 1 h output",
                                  "arg 1 cu_seqlens input i64 N1\narg 2 h "
                                  "output"),
                     "arg 2 final_state", "arg 3 final_state"),
        mock.path);
    if (fixed && varlen) {
      Buffer kg(2 * 130 * 2 * 8 * 2), hs(2 * 4 * 2 * 64 * 2),
          ht(4 * 2 * 64 * 4), cu(4 * 8);
      TensorArg t[4]; // the tensors of the latest LaunchArgs made below
      auto launch = [&](int64_t B, int64_t NT, int64_t N) {
        LaunchArgs la;
        t[0] = TensorArg::make(kg.data, DType::BF16, {B, 130, 2, 8});
        t[1] = TensorArg::make(hs.data, DType::BF16, {B, NT, 2, 8, 8});
        t[2] = TensorArg::make(ht.data, DType::F32, {N, 2, 8, 8});
        la.tensors = t;
        la.numTensors = 3;
        return la;
      };
      Plan plan;
      h.expectOk("validate/state-slots-accepted",
                 fixed->validate(launch(2, 3, 2), plan));
      r.expect("state-slots-nt", *fixed, launch(2, 2, 2), hs,
               "NT = 2 (chunk slots of h) must be 3 = ceil(T / chunk)");
      r.expect("state-slots-n", *fixed, launch(2, 3, 1), hs,
               "N = 1 (state slots) must be B = 2");

      // Varlen: 0, 0, 65, 130 has 0 + 2 + 2 chunks.
      const std::vector<int64_t> cuHost = {0, 0, 65, 130};
      std::memcpy(cu.data, cuHost.data(), 32);
      auto launchVarlen = [&](int64_t NT, int64_t N) {
        LaunchArgs la;
        t[0] = TensorArg::make(kg.data, DType::BF16, {1, 130, 2, 8});
        t[1] = TensorArg::make(cu.data, DType::I64, {4});
        t[2] = TensorArg::make(hs.data, DType::BF16, {1, NT, 2, 8, 8});
        t[3] = TensorArg::make(ht.data, DType::F32, {N, 2, 8, 8});
        la.tensors = t;
        la.numTensors = 4;
        la.cuSeqlensHost = cuHost.data();
        la.numCuSeqlensHost = cuHost.size();
        return la;
      };
      h.expectOk("validate/state-slots-varlen-accepted",
                 varlen->validate(launchVarlen(4, 3), plan));
      r.expect("state-slots-varlen-nt", *varlen, launchVarlen(3, 3), hs,
               "NT = 3 (chunk slots of h) must be 4, the number of chunks of "
               "the sequences");
      r.expect("state-slots-varlen-n", *varlen, launchVarlen(4, 4), hs,
               "N = 4 (state slots) must be the number of sequences in "
               "cu_seqlens = 3");
    }
  }
  {
    // Chunk program slots: NC (decay_last's chunk dimension) must be
    // ceil(T / chunk), or floor(T / chunk) + N with cu_seqlens.
    const char *chunkManifest = R"(abi 1
chip sm_90
entry test_chunks
key program=test chunk=64
arg 0 kg input bf16 B,T,2,8
arg 1 decay_last output f32 B,NC,2,8
kernel test_chunks_k
block 128 1 1
shared 0
grid 1 1 1
param arg 0
param arg 1
end-kernel
)";
    auto fixed = makeProgram(h, chunkManifest, mock.path);
    auto varlen = makeProgram(
        h,
        replaceFirst(chunkManifest, "arg 1 decay_last output",
                     "arg 1 cu_seqlens input i64 N1\narg 2 decay_last output"),
        mock.path);
    if (fixed && varlen) {
      Buffer kg(2 * 130 * 2 * 8 * 2), gl(2 * 8 * 2 * 8 * 4), cu(4 * 8);
      TensorArg t[3];
      Plan plan;
      auto launch = [&](int64_t B, int64_t NC) {
        LaunchArgs la;
        t[0] = TensorArg::make(kg.data, DType::BF16, {B, 130, 2, 8});
        t[1] = TensorArg::make(gl.data, DType::F32, {B, NC, 2, 8});
        la.tensors = t;
        la.numTensors = 2;
        return la;
      };
      h.expectOk("validate/chunk-slots-accepted",
                 fixed->validate(launch(2, 3), plan));
      r.expect("chunk-slots-nc", *fixed, launch(2, 2), gl,
               "NC = 2 (chunk program slots) must be 3 = ceil(T / chunk)");
      // Varlen: 0, 0, 65, 130: floor(130 / 64) + 3 = 5 slots.
      const std::vector<int64_t> cuHost = {0, 0, 65, 130};
      std::memcpy(cu.data, cuHost.data(), 32);
      auto launchVarlen = [&](int64_t NC) {
        LaunchArgs la;
        t[0] = TensorArg::make(kg.data, DType::BF16, {1, 130, 2, 8});
        t[1] = TensorArg::make(cu.data, DType::I64, {4});
        t[2] = TensorArg::make(gl.data, DType::F32, {1, NC, 2, 8});
        la.tensors = t;
        la.numTensors = 3;
        la.cuSeqlensHost = cuHost.data();
        la.numCuSeqlensHost = cuHost.size();
        return la;
      };
      h.expectOk("validate/chunk-slots-varlen-accepted",
                 varlen->validate(launchVarlen(5), plan));
      r.expect("chunk-slots-varlen-nc", *varlen, launchVarlen(4), gl,
               "NC = 4 (chunk program slots) must be 5 = floor(T / chunk) + "
               "the number of sequences");
    }
  }
  h.record("validate/driver-never-called", mock.state->calls == 0,
           std::to_string(mock.state->calls) + " driver calls");
}

} // namespace kda::rt::test
