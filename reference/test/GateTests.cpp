//===- GateTests.cpp - gate activation and cumsum tests -------------------===//

#include "Tests.h"

#include "kda/Reference/Reference.h"

#include <cmath>

namespace kda::ref::test {
namespace {

const char *modeName(GateMode m) {
  switch (m) {
  case GateMode::Precomputed:
    return "precomputed";
  case GateMode::Softplus:
    return "softplus";
  case GateMode::LowerBound:
    return "lower-bound";
  }
  return "?";
}

/// Gate activation written out independently of the library.
double naiveGamma(GateMode mode, double g, double aLog, double bias,
                  double lb) {
  if (mode == GateMode::Precomputed)
    return g;
  double a = g + bias;
  if (mode == GateMode::Softplus) {
    double sp = a > 20.0 ? a : std::log(1.0 + std::exp(a));
    return -std::exp(aLog) * sp;
  }
  return lb / (1.0 + std::exp(-std::exp(aLog) * a));
}

/// G by a direct sum from the start of the row's chunk.
std::vector<double> naiveCumsum(const Problem &p, const std::vector<double> &g,
                                const GateOptions &opt) {
  std::vector<double> G(g.size(), 0.0);
  std::vector<int64_t> bounds = p.cuSeqlens;
  if (bounds.empty())
    for (int64_t b = 0; b <= p.B; ++b)
      bounds.push_back(b * p.T);
  for (size_t n = 0; n + 1 < bounds.size(); ++n)
    for (int64_t row = bounds[n]; row < bounds[n + 1]; ++row) {
      int64_t start =
          bounds[n] + (row - bounds[n]) / p.chunkSize * p.chunkSize;
      for (int64_t nu = 0; nu < p.HV; ++nu)
        for (int64_t d = 0; d < p.K; ++d) {
          double aLog = opt.aLog ? (*opt.aLog)[nu] : 0.0;
          double bias = opt.dtBias ? (*opt.dtBias)[nu * p.K + d] : 0.0;
          double sum = 0.0;
          for (int64_t r = start; r <= row; ++r)
            sum += naiveGamma(opt.mode, g[(r * p.HV + nu) * p.K + d], aLog,
                              bias, opt.lowerBound);
          G[(row * p.HV + nu) * p.K + d] = sum / std::log(2.0);
        }
    }
  return G;
}

void checkGateCase(Harness &h, const std::string &label, const Problem &p,
                   GateMode mode, bool withALog, bool withBias, Rng &rng) {
  std::vector<double> g = mode == GateMode::Precomputed
                              ? randomLogsigmoidGate(rng, p.gateSize(), 1.0)
                              : randomNormal(rng, p.gateSize());
  if (mode == GateMode::Precomputed)
    maskWithProbability(rng, g, 0.1, -1000.0);
  std::vector<double> aLog = randomNormal(rng, p.HV);
  std::vector<double> dtBias = randomNormal(rng, p.HV * p.K);
  GateOptions opt;
  opt.mode = mode;
  opt.aLog = withALog ? &aLog : nullptr;
  opt.dtBias = withBias ? &dtBias : nullptr;
  opt.lowerBound = -5.0;
  std::vector<double> G = gateCumsum(p, g, opt);
  std::string name = "gate/" + std::string(modeName(mode)) + "/" + label +
                     (withALog ? "/A_log" : "") + (withBias ? "/dt_bias" : "");
  h.expectClose(name + " vs naive", compareTensors(G, naiveCumsum(p, g, opt)),
                1e-13);

  // gamma <= 0 implies G non-increasing along every chunk, and finite.
  bool monotone = allFinite(G);
  for (const Chunk &c : p.chunks())
    for (int64_t r = c.begin + 1; r < c.end; ++r)
      for (int64_t i = 0; i < p.HV * p.K; ++i)
        monotone &= G[r * p.HV * p.K + i] <= G[(r - 1) * p.HV * p.K + i];
  h.record(name + " monotone", monotone, "finite, non-increasing per chunk");

  std::vector<double> viaActivation =
      chunkLocalCumsumLog2(p, gateActivation(p, g, opt));
  h.expectClose(name + " activation+cumsum", compareTensors(G, viaActivation),
                0.0);
}

Problem gateProblem(int64_t B, int64_t T, int64_t chunk,
                    std::vector<int64_t> cu, int64_t K) {
  Problem p;
  p.B = B;
  p.T = T;
  p.H = 2;
  p.HV = 4;
  p.K = K;
  p.V = 3;
  p.chunkSize = chunk;
  p.cuSeqlens = std::move(cu);
  return p;
}

} // namespace

void runGateTests(Harness &h) {
  Rng rng(0x6a7e);
  struct Shape {
    const char *label;
    Problem p;
  };
  const Shape shapes[] = {
      {"B2T150bt64K5", gateProblem(2, 150, 64, {}, 5)},
      {"B2T150bt32K20", gateProblem(2, 150, 32, {}, 20)},
      {"varlen0-15-100-300bt64", gateProblem(1, 300, 64, {0, 15, 100, 300}, 5)},
      {"varlen0-1-64-65-300bt32",
       gateProblem(1, 300, 32, {0, 1, 64, 65, 300}, 20)},
  };
  for (const Shape &s : shapes) {
    checkGateCase(h, s.label, s.p, GateMode::Precomputed, false, false, rng);
    for (GateMode mode : {GateMode::Softplus, GateMode::LowerBound})
      for (bool withALog : {true, false})
        for (bool withBias : {true, false})
          checkGateCase(h, s.label, s.p, mode, withALog, withBias, rng);
  }

  // Scalar spot checks of the activations.
  Problem one = gateProblem(1, 1, 64, {}, 1);
  GateOptions sp{GateMode::Softplus, nullptr, nullptr, -5.0};
  GateOptions lb{GateMode::LowerBound, nullptr, nullptr, -5.0};
  bool ok = gateActivationAt(one, sp, 30.0, 0, 0) == -30.0 &&
            std::fabs(gateActivationAt(one, sp, 0.0, 0, 0) + std::log(2.0)) <
                1e-15 &&
            gateActivationAt(one, lb, 0.0, 0, 0) == -2.5 &&
            softplus(21.0) == 21.0;
  h.record("gate/scalar", ok, "softplus(30)=30, softplus(0)=ln2, lb*sig(0)");
}

} // namespace kda::ref::test
