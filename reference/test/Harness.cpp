//===- Harness.cpp - minimal case recorder of kda-reference-test ----------===//

#include "Harness.h"

#include <cstdio>

namespace kda::ref::test {

std::string sci(double x) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2e", x);
  return buf;
}

void Harness::record(const std::string &name, bool ok,
                     const std::string &detail) {
  ++numCases;
  if (!ok)
    ++numFailed;
  std::printf("[%s] %s: %s\n", ok ? "ok" : "FAIL", name.c_str(),
              detail.c_str());
}

void Harness::expectClose(const std::string &name, const ErrorStats &s,
                          double tol) {
  bool ok = s.finite && s.relRms <= tol;
  record(name, ok,
         "rel " + sci(s.relRms) + " max " + sci(s.maxAbs) +
             (s.finite ? "" : " non-finite") + " (tol " + sci(tol) + ")");
}

} // namespace kda::ref::test
