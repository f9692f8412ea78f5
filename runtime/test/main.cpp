//===- main.cpp - kda-runtime-test driver ---------------------------------===//
//
// kda-runtime-test            host-only tests (a mock driver, no GPU)
// kda-runtime-test --gpu B... tests on the GPU with bundles B
//
// Prints one line per case, "N cases, M failed" and a final PASS or FAIL
// line; exits non-zero on failure.
//
//===----------------------------------------------------------------------===//

#include "Tests.h"

#include <cstdio>
#include <cstring>
#include <exception>

int main(int argc, char **argv) {
  kda::rt::test::Harness h;
  bool gpu = argc > 1 && std::strcmp(argv[1], "--gpu") == 0;
  if ((argc > 1 && !gpu) || (gpu && argc < 3)) {
    std::fprintf(stderr, "usage: kda-runtime-test [--gpu BUNDLE...]\n");
    return 2;
  }
  try {
    if (gpu) {
      for (int i = 2; i < argc; ++i)
        kda::rt::test::runGpuTests(h, argv[i]);
    } else {
      kda::rt::test::runExprTests(h);
      kda::rt::test::runBundleTests(h);
      kda::rt::test::runValidateTests(h);
      kda::rt::test::runDriverTests(h);
      kda::rt::test::runCpuTests(h);
      kda::rt::test::runCApiTests(h);
      kda::rt::test::runForwardTests(h);
    }
  } catch (const std::exception &e) {
    h.record("exception", false, e.what());
  }
  std::printf("%d cases, %d failed\n", h.cases(), h.failures());
  std::printf("%s\n", h.failures() == 0 ? "PASS" : "FAIL");
  return h.failures() == 0 ? 0 : 1;
}
