//===- Metric.cpp - error metric of KDA comparisons -----------------------===//

#include "kda/Reference/Metric.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kda::ref {

bool ErrorStats::passes(double ratio) const {
  if (finite && maxAbs <= 1e-6)
    return true;
  return finite && relRms < ratio;
}

ErrorStats compareTensors(const double *out, const double *ref, int64_t n) {
  ErrorStats s;
  double diff2 = 0.0, ref2 = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(out[i]) || !std::isfinite(ref[i]))
      s.finite = false;
    double d = out[i] - ref[i];
    diff2 += d * d;
    ref2 += ref[i] * ref[i];
    s.maxAbs = std::max(s.maxAbs, std::fabs(d));
  }
  if (!s.finite) {
    s.relRms = s.maxAbs = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  if (n > 0)
    s.relRms = std::sqrt(diff2 / n) / (std::sqrt(ref2 / n) + 1e-8);
  return s;
}

ErrorStats compareTensors(const std::vector<double> &out,
                          const std::vector<double> &ref) {
  if (out.size() != ref.size()) {
    ErrorStats s;
    s.relRms = s.maxAbs = std::numeric_limits<double>::infinity();
    return s;
  }
  return compareTensors(out.data(), ref.data(),
                        static_cast<int64_t>(out.size()));
}

bool allFinite(const std::vector<double> &x) {
  return std::all_of(x.begin(), x.end(),
                     [](double e) { return std::isfinite(e); });
}

double rms(const std::vector<double> &x) {
  if (x.empty())
    return 0.0;
  double s = 0.0;
  for (double e : x)
    s += e * e;
  return std::sqrt(s / x.size());
}

} // namespace kda::ref
