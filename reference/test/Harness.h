//===- Harness.h - minimal case recorder of kda-reference-test --*- C++ -*-===//

#ifndef KDA_REFERENCE_TEST_HARNESS_H
#define KDA_REFERENCE_TEST_HARNESS_H

#include "kda/Reference/Metric.h"

#include <string>

namespace kda::ref::test {

/// Records test cases, printing one line per case.
class Harness {
public:
  /// Records a case with an explicit verdict and a detail string.
  void record(const std::string &name, bool ok, const std::string &detail);
  /// Records a comparison: passes when finite and relRms <= tol.
  void expectClose(const std::string &name, const ErrorStats &s, double tol);
  /// Number of failed cases so far.
  int failures() const { return numFailed; }
  /// Number of recorded cases so far.
  int cases() const { return numCases; }

private:
  int numCases = 0;
  int numFailed = 0;
};

/// Formats a double in scientific notation with 2 digits.
std::string sci(double x);

} // namespace kda::ref::test

#endif // KDA_REFERENCE_TEST_HARNESS_H
