//===- Report.h - error statistics and the result table ----------*- C++ -*-===//

#ifndef KDA_RUN_REPORT_H
#define KDA_RUN_REPORT_H

#include <cstdint>
#include <string>
#include <vector>

namespace kda::run {

/// Comparison of one output with the reference (fla's metric:
/// rms(out - ref) / (rms(ref) + 1e-8), and the max abs error).
struct OutputStats {
  std::string name;
  /// Largest accepted RMS ratio.
  double threshold = 0;
  /// False with --no-check: only nonfinite is meaningful.
  bool compared = true;
  /// Elements compared with the reference (finite ones).
  int64_t checked = 0;
  /// Total elements of the output.
  int64_t total = 0;
  /// NaN or Inf elements anywhere in the output (outputs start as NaN, so
  /// this also counts elements the kernel never wrote).
  int64_t nonfinite = 0;
  double diff2 = 0, ref2 = 0, maxAbs = 0;

  /// Accumulates one finite element.
  void add(double out, double ref);
  /// Counts one output element (and, when it is NaN or Inf, one nonfinite
  /// element); returns whether it is finite, that is, comparable.
  bool count(double out);
  /// Counts `out` and, when `compare` and it is finite, accumulates it
  /// against `expected[at]` (which is read only then).
  void take(double out, const std::vector<double> &expected, int64_t at,
            bool compare);
  /// Adds the counts and sums of `other` (a part of the same output).
  void merge(const OutputStats &other);
  double relRms() const;
  bool passes() const;
};

/// Prints the table, then the last line (PASS/FAIL ...); returns the verdict.
bool printReport(const std::vector<OutputStats> &outputs);

} // namespace kda::run

#endif // KDA_RUN_REPORT_H
