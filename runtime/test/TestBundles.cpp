//===- TestBundles.cpp - hand-written bundles for the host tests ----------===//

#include "TestBundles.h"

#include "MockCuda.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace kda::rt::test {

const char *const kFullManifest = R"(abi 1
chip sm_90
entry test_full
key program=test K=8 chunk=64
arg 0 q input bf16 B,T,H,8
arg 1 g input bf16 B,T,HV,8
arg 2 cu_seqlens input i64 N1
arg 3 o output f32 B,T,HV,8
workspace scratch mul(dim(0,1),16)
workspace small 100
kernel test_full_k
block 128 1 1
shared 65536
grid ceildiv(dim(0,1),64) dim(1,2) 1
param arg 0
param arg 1
param arg 2
param arg 3
param workspace scratch f32 dim(0,1),4
param workspace small i32 25
param index sub(dim(2,0),1)
end-kernel
)";

const char *const kScaleManifest = R"(abi 1
chip sm_90
entry test_scale
key program=scale
arg 0 x input f32 B,T,4
arg 1 y output f32 B,T,4
kernel test_scale_k
block 128 1 1
shared 0
grid ceildiv(mul(dim(0,0),dim(0,1)),32) 1 1
param arg 0
param arg 1
end-kernel
)";

std::string makeBundle(
    const std::vector<std::pair<std::string, std::string>> &sections,
    int abi) {
  std::string out = "KDA-BUNDLE " + std::to_string(abi) + "\n";
  for (const auto &s : sections)
    out += "section " + s.first + " " + std::to_string(s.second.size()) +
           "\n" + s.second + "\n";
  return out + "end\n";
}

std::string ptxEntry(const std::string &name, int numParams) {
  std::string s = ".visible .entry " + name + "(\n";
  for (int i = 0; i < numParams; ++i)
    s += "\t.param .u64 " + name + "_param_" + std::to_string(i) +
         (i + 1 < numParams ? ",\n" : "\n");
  return s + ")\n{\n\tret;\n}\n";
}

std::string makeBundle(const std::string &manifest) {
  std::string ptx = "//\n// test PTX\n//\n\n.version 8.0\n.target sm_90\n"
                    ".address_size 64\n\n";
  Manifest m;
  Status s = Manifest::parse(manifest, 1, m);
  if (s)
    for (const KernelSpec &k : m.kernels)
      ptx += ptxEntry(k.name, k.numParamWords) + "\n";
  return makeBundle({{"manifest", manifest}, {"ptx", ptx}});
}

std::string mockDriverPath() {
  const char *env = std::getenv("KDA_TEST_MOCK_CUDA");
  return env && *env ? env : KDA_MOCK_CUDA_PATH;
}

std::string fakeCpuSectionPath() { return KDA_TEST_CPU_SECTION_PATH; }

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

MockInstance freshMock(const std::string &name) {
  static std::string dir;
  if (dir.empty()) {
    const char *tmp = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/kda-runtime-test-XXXXXX";
    if (mkdtemp(tmpl.data())) {
      dir = tmpl;
      // The copies are unlinked once loaded; the directory goes at exit.
      std::atexit([] { rmdir(dir.c_str()); });
    }
  }
  MockInstance m;
  m.path = dir + "/" + name + ".so";
  std::ofstream(m.path, std::ios::binary) << readFile(mockDriverPath());
  void *h = dlopen(m.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  unlink(m.path.c_str()); // the mapping stays; the runtime reopens the handle
  if (!h) {
    std::fprintf(stderr, "cannot load %s: %s\n", m.path.c_str(), dlerror());
    return m;
  }
  auto *get = reinterpret_cast<KdaMockState *(*)()>(
      dlsym(h, "kda_mock_state"));
  m.state = get ? get() : nullptr;
  return m;
}

Buffer::Buffer(size_t n, unsigned char f) : bytes(n), fill(f) {
  data = std::aligned_alloc(256, (n + 255) / 256 * 256 + 256);
  std::memset(data, f, (n + 255) / 256 * 256 + 256);
}

Buffer::~Buffer() { std::free(data); }

bool Buffer::untouched() const {
  const auto *p = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < bytes; ++i)
    if (p[i] != fill)
      return false;
  return true;
}

FullArgs::FullArgs(int64_t T, int64_t H, int64_t HV, std::vector<int64_t> c)
    : q(T * H * 8 * 2), g(T * HV * 8 * 2), cu(c.size() * 8),
      o(T * HV * 8 * 4), ws(T * 16 + 256 + 4096), cuHost(std::move(c)) {
  std::memcpy(cu.data, cuHost.data(), cuHost.size() * 8);
  int64_t n1 = static_cast<int64_t>(cuHost.size());
  tensors[0] = TensorArg::make(q.data, DType::BF16, {1, T, H, 8});
  tensors[1] = TensorArg::make(g.data, DType::BF16, {1, T, HV, 8});
  tensors[2] = TensorArg::make(cu.data, DType::I64, {n1});
  tensors[3] = TensorArg::make(o.data, DType::F32, {1, T, HV, 8});
}

LaunchArgs FullArgs::args() const {
  LaunchArgs a;
  a.tensors = tensors;
  a.numTensors = 4;
  a.cuSeqlensHost = cuHost.data();
  a.numCuSeqlensHost = cuHost.size();
  a.workspace = ws.data;
  a.workspaceBytes = ws.bytes;
  return a;
}

} // namespace kda::rt::test
