//===- main.cpp - kda-reference-test driver -------------------------------===//
//
// Self-test of the float64 KDA reference: prints one line per case and a
// final PASS or FAIL line; exits non-zero on failure.
//
//===----------------------------------------------------------------------===//

#include "Tests.h"

#include <cstdio>
#include <exception>

int main() {
  kda::ref::test::Harness h;
  try {
    kda::ref::test::runMiscTests(h);
    kda::ref::test::runGateTests(h);
    kda::ref::test::runChunkTests(h);
  } catch (const std::exception &e) {
    h.record("exception", false, e.what());
  }
  std::printf("%d cases, %d failed\n", h.cases(), h.failures());
  std::printf("%s\n", h.failures() == 0 ? "PASS" : "FAIL");
  return h.failures() == 0 ? 0 : 1;
}
