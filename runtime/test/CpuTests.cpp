//===- CpuTests.cpp - running a bundle's cpu section ----------------------===//

#include "TestBundles.h"
#include "Tests.h"

#include <cstring>

namespace kda::rt::test {

namespace {

std::unique_ptr<Program> withCpu(const std::string &manifest,
                                 const std::string &cpu, bool hasCpu = true,
                                 bool refuseCpu = false) {
  std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n" +
                    ptxEntry("test_scale_k", 18);
  std::vector<std::pair<std::string, std::string>> sections = {
      {"manifest", manifest}, {"ptx", ptx}};
  if (hasCpu)
    sections.push_back({"cpu", cpu});
  std::string image = makeBundle(sections);
  std::unique_ptr<Program> p;
  ProgramOptions o;
  o.driverPath = "/nonexistent/the-cpu-path-needs-no-driver";
  o.refuseCpu = refuseCpu;
  if (!Program::fromMemory(image.data(), image.size(), p, o))
    return nullptr;
  return p;
}

} // namespace

void runCpuTests(Harness &h) {
  std::string so = readFile(fakeCpuSectionPath());
  h.record("cpu/fake-build-present", so.size() > 4 && so.substr(1, 3) == "ELF",
           fakeCpuSectionPath());
  auto p = withCpu(kScaleManifest, so);
  if (!p) {
    h.record("cpu/load", false);
    return;
  }
  const int64_t B = 2, T = 3, n = B * T * 4;
  Buffer x(n * 4), y(n * 4, 0xFF);
  for (int64_t i = 0; i < n; ++i)
    static_cast<float *>(x.data)[i] = static_cast<float>(i);
  TensorArg t[2] = {TensorArg::make(x.data, DType::F32, {B, T, 4}),
                    TensorArg::make(y.data, DType::F32, {B, T, 4})};
  LaunchArgs la;
  la.tensors = t;
  la.numTensors = 2;
  Status s = p->runCpu(la);
  bool ok = s.isOk();
  for (int64_t i = 0; i < n && ok; ++i)
    ok = static_cast<float *>(y.data)[i] == 2.0f * i + 1.0f;
  h.record("cpu/runs-the-cpu-section", ok, s.message());
  s = p->runCpu(la);
  h.expectOk("cpu/second-run", s);

  // Validation applies to the CPU path too, and rejects before running.
  Buffer y2(n * 4, 0xFF);
  t[1].data = static_cast<char *>(y2.data) + 4;
  h.expectError("cpu/misaligned-rejected", p->runCpu(la),
                ErrorCode::InvalidArgument, "argument 1 'y': pointer");
  t[1].data = y2.data;
  t[1].dims[2] = 5;
  h.expectError("cpu/shape-rejected", p->runCpu(la), ErrorCode::InvalidArgument,
                "argument 1 'y': dimension 2 is 5, the bundle's is 4");
  h.record("cpu/rejected-nothing-written", y2.untouched());
  t[1].dims[2] = 4;

  // An application that refuses CPU builds never loads one.
  auto refused = withCpu(kScaleManifest, so, /*hasCpu=*/true,
                         /*refuseCpu=*/true);
  h.expectError("cpu/refused", refused->runCpu(la), ErrorCode::Unsupported,
                "CPU builds are refused here");
  auto none = withCpu(kScaleManifest, "", /*hasCpu=*/false);
  h.expectError("cpu/no-section", none->runCpu(la), ErrorCode::Unsupported,
                "the bundle has no cpu section");
  auto garbage = withCpu(kScaleManifest, "not an ELF file");
  h.expectError("cpu/garbage-section", garbage->runCpu(la),
                ErrorCode::InvalidBundle,
                "the bundle's cpu section: cannot load it:");
  std::string other = kScaleManifest;
  other.replace(other.find("entry test_scale"), 16, "entry other");
  auto wrong = withCpu(other, so);
  h.expectError("cpu/missing-entry", wrong->runCpu(la),
                ErrorCode::InvalidBundle,
                "the bundle's cpu section: it does not export "
                "_mlir_ciface_other");
  h.record("cpu/failures-nothing-written", y2.untouched());
}

} // namespace kda::rt::test
