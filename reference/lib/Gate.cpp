//===- Gate.cpp - KDA gate activation and chunk-local cumsum --------------===//

#include "kda/Reference/Gate.h"

#include "Check.h"

#include <cmath>

namespace kda::ref {

double softplus(double x) { return x > 20.0 ? x : std::log1p(std::exp(x)); }

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

double gateActivationAt(const Problem &p, const GateOptions &opt, double g,
                        int64_t nu, int64_t d) {
  if (opt.mode == GateMode::Precomputed)
    return g;
  double a = g + (opt.dtBias ? (*opt.dtBias)[nu * p.K + d] : 0.0);
  double factor = opt.aLog ? std::exp((*opt.aLog)[nu]) : 1.0;
  if (opt.mode == GateMode::Softplus)
    return -factor * softplus(a);
  return opt.lowerBound * sigmoid(factor * a);
}

std::vector<double> gateActivation(const Problem &p,
                                   const std::vector<double> &g,
                                   const GateOptions &opt) {
  p.validate();
  checkSize(g, p.gateSize(), "g");
  if (opt.aLog)
    checkSize(*opt.aLog, p.HV, "A_log");
  if (opt.dtBias)
    checkSize(*opt.dtBias, p.HV * p.K, "dt_bias");
  std::vector<double> gamma(g.size());
  for (int64_t row = 0; row < p.numRows(); ++row)
    for (int64_t nu = 0; nu < p.HV; ++nu)
      for (int64_t d = 0; d < p.K; ++d) {
        int64_t i = at3(row, nu, d, p.HV, p.K);
        gamma[i] = gateActivationAt(p, opt, g[i], nu, d);
      }
  return gamma;
}

std::vector<double> recurrenceGate(const Problem &p,
                                   const std::vector<double> &g,
                                   const GateOptions &opt) {
  return gateActivation(p, g, opt);
}

std::vector<double> chunkLocalCumsumLog2(const Problem &p,
                                         const std::vector<double> &gamma) {
  p.validate();
  checkSize(gamma, p.gateSize(), "gamma");
  std::vector<double> G(gamma.size(), 0.0);
  for (const Chunk &c : p.chunks())
    for (int64_t nu = 0; nu < p.HV; ++nu)
      for (int64_t d = 0; d < p.K; ++d) {
        double sum = 0.0;
        for (int64_t r = c.begin; r < c.end; ++r) {
          sum += gamma[at3(r, nu, d, p.HV, p.K)];
          G[at3(r, nu, d, p.HV, p.K)] = kRcpLn2 * sum;
        }
      }
  return G;
}

std::vector<double> gateCumsum(const Problem &p, const std::vector<double> &g,
                               const GateOptions &opt) {
  return chunkLocalCumsumLog2(p, gateActivation(p, g, opt));
}

} // namespace kda::ref
