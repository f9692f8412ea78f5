//===- Harness.h - case recorder of kda-runtime-test -------------*- C++ -*-===//

#ifndef KDA_RUNTIME_TEST_HARNESS_H
#define KDA_RUNTIME_TEST_HARNESS_H

#include "kda/Runtime/Status.h"

#include <string>

namespace kda::rt::test {

/// Records cases, printing one line per case: "[ok] name: detail" or
/// "[FAIL] name: detail".
class Harness {
public:
  void record(const std::string &name, bool ok, const std::string &detail = "");
  /// Passes when `s` failed with `code` and its message contains `needle`.
  void expectError(const std::string &name, const Status &s, ErrorCode code,
                   const std::string &needle);
  /// Passes when `s` is ok.
  void expectOk(const std::string &name, const Status &s);
  int failures() const { return numFailed; }
  int cases() const { return numCases; }

private:
  int numCases = 0;
  int numFailed = 0;
};

/// Number of operator new calls so far in this thread.
long allocationCount();

} // namespace kda::rt::test

#endif // KDA_RUNTIME_TEST_HARNESS_H
