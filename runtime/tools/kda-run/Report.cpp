//===- Report.cpp - error statistics and the result table -----------------===//

#include "Report.h"

#include <cmath>
#include <cstdio>

namespace kda::run {

void OutputStats::add(double out, double ref) {
  double d = out - ref;
  diff2 += d * d;
  ref2 += ref * ref;
  ++checked;
  if (std::fabs(d) > maxAbs)
    maxAbs = std::fabs(d);
}

bool OutputStats::count(double out) {
  ++total;
  if (std::isfinite(out))
    return true;
  ++nonfinite;
  return false;
}

void OutputStats::take(double out, const std::vector<double> &expected,
                       int64_t at, bool compare) {
  if (count(out) && compare)
    add(out, expected[at]);
}

void OutputStats::merge(const OutputStats &other) {
  checked += other.checked;
  total += other.total;
  nonfinite += other.nonfinite;
  diff2 += other.diff2;
  ref2 += other.ref2;
  maxAbs = std::fmax(maxAbs, other.maxAbs);
}

double OutputStats::relRms() const {
  if (checked == 0)
    return 0;
  double n = static_cast<double>(checked);
  return std::sqrt(diff2 / n) / (std::sqrt(ref2 / n) + 1e-8);
}

bool OutputStats::passes() const {
  return nonfinite == 0 && (!compared || relRms() <= threshold);
}

bool printReport(const std::vector<OutputStats> &outputs) {
  std::printf("%-10s %12s %12s %12s %10s %10s  %s\n", "output", "checked",
              "rms_ratio", "max_abs", "nonfinite", "threshold", "result");
  bool pass = true;
  double worstRms = 0, worstAbs = 0;
  std::string why;
  for (const OutputStats &o : outputs) {
    bool ok = o.passes();
    pass &= ok;
    if (o.compared) {
      std::printf("%-10s %12lld %12.3e %12.3e %10lld %10.1e  %s\n",
                  o.name.c_str(), static_cast<long long>(o.checked),
                  o.relRms(), o.maxAbs, static_cast<long long>(o.nonfinite),
                  o.threshold, ok ? "ok" : "FAIL");
      worstRms = std::fmax(worstRms, o.relRms());
      worstAbs = std::fmax(worstAbs, o.maxAbs);
    } else {
      std::printf("%-10s %12s %12s %12s %10lld %10s  %s\n", o.name.c_str(),
                  "-", "-", "-", static_cast<long long>(o.nonfinite), "-",
                  ok ? "ok" : "FAIL");
    }
    if (!ok && why.empty()) {
      if (o.nonfinite)
        why = o.name + ": " + std::to_string(o.nonfinite) + " of " +
              std::to_string(o.total) + " elements NaN/Inf or unwritten";
      else {
        char buffer[96];
        std::snprintf(buffer, sizeof buffer, "%s: rms_ratio above %.1e",
                      o.name.c_str(), o.threshold);
        why = buffer;
      }
    }
  }
  bool compared = !outputs.empty() && outputs.front().compared;
  if (compared)
    std::printf("%s worst rms_ratio=%.3e max_abs=%.3e%s\n",
                pass ? "PASS" : "FAIL", worstRms, worstAbs,
                why.empty() ? "" : (" (" + why + ")").c_str());
  else
    std::printf("%s unchecked (--no-check): %s\n", pass ? "PASS" : "FAIL",
                pass ? "every output element written and finite"
                     : why.c_str());
  return pass;
}

} // namespace kda::run
