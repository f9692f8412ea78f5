//===- Metric.h - error metric of KDA comparisons ---------------*- C++ -*-===//
//
// fla's assert_close metric: rms(out - ref) / (rms(ref) + 1e-8), together with
// the maximum absolute error and a NaN/Inf check.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_METRIC_H
#define KDA_REFERENCE_METRIC_H

#include <cstdint>
#include <vector>

namespace kda::ref {

/// Result of comparing an output against a reference.
struct ErrorStats {
  /// rms(out - ref) / (rms(ref) + 1e-8).
  double relRms = 0.0;
  /// max |out - ref|.
  double maxAbs = 0.0;
  /// True when every element of out and ref is finite.
  bool finite = true;
  /// fla's acceptance rule: max abs <= 1e-6, or finite and relRms < ratio.
  bool passes(double ratio) const;
};

/// Compares `out` against `ref` (same size, else relRms/maxAbs are +inf).
ErrorStats compareTensors(const std::vector<double> &out,
                          const std::vector<double> &ref);

/// Same as compareTensors for raw buffers of n elements.
ErrorStats compareTensors(const double *out, const double *ref, int64_t n);

/// True when no element is NaN or +-Inf.
bool allFinite(const std::vector<double> &x);

/// Root mean square of x (0 for an empty vector).
double rms(const std::vector<double> &x);

} // namespace kda::ref

#endif // KDA_REFERENCE_METRIC_H
