//===- Gate.h - KDA gate activation and chunk-local cumsum ------*- C++ -*-===//
//
// Stage 1 of the chunked forward: the per-channel decay gate, optionally
// activated in-kernel, and its chunk-local inclusive cumsum in log2 units.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_GATE_H
#define KDA_REFERENCE_GATE_H

#include "kda/Reference/Problem.h"

#include <vector>

namespace kda::ref {

/// 1/ln 2 in float64 (fla's RCP_LN2 is its fp32 rounding).
constexpr double kRcpLn2 = 1.4426950408889634073599246810019;

/// How the gate input g is turned into the natural-log decay gamma.
enum class GateMode {
  /// g already is the natural-log decay (gamma = g).
  Precomputed,
  /// gamma = -exp(A_log) * softplus(g + dt_bias).
  Softplus,
  /// gamma = lower_bound * sigmoid(exp(A_log) * (g + dt_bias)).
  LowerBound,
};

/// Gate activation parameters. Missing A_log means a factor exp(A_log) of 1;
/// missing dt_bias means a bias of 0. Both are ignored in Precomputed mode.
struct GateOptions {
  /// Activation mode.
  GateMode mode = GateMode::Precomputed;
  /// Optional A_log [HV]; not owned.
  const std::vector<double> *aLog = nullptr;
  /// Optional dt_bias [HV*K] (viewed as [HV,K]); not owned.
  const std::vector<double> *dtBias = nullptr;
  /// Lower bound lb (used in LowerBound mode only).
  double lowerBound = -5.0;
};

/// fla's softplus: x if x > 20, else ln(1 + e^x).
double softplus(double x);

/// Logistic sigmoid 1 / (1 + e^-x).
double sigmoid(double x);

/// Activation of a single gate element of value head `nu`, channel `d`.
double gateActivationAt(const Problem &p, const GateOptions &opt, double g,
                        int64_t nu, int64_t d);

/// gamma [B,T,HV,K]: the natural-log per-token decay for gate input g
/// [B,T,HV,K] (g itself in Precomputed mode).
std::vector<double> gateActivation(const Problem &p,
                                   const std::vector<double> &g,
                                   const GateOptions &opt = {});

/// The natural-log gate consumed by the per-token recurrence (the `g` of
/// fla's naive recurrence): identical to gateActivation.
std::vector<double> recurrenceGate(const Problem &p,
                                   const std::vector<double> &g,
                                   const GateOptions &opt = {});

/// Stage 1: G [B,T,HV,K] = (1/ln2) * chunk-local inclusive cumsum of
/// gamma = gateActivation(g). The sum restarts at every chunk of
/// p.chunkSize rows and at every sequence; 1/ln2 is applied after the sum.
std::vector<double> gateCumsum(const Problem &p, const std::vector<double> &g,
                               const GateOptions &opt = {});

/// Stage 1 on an already-activated natural-log gate (Precomputed mode).
std::vector<double> chunkLocalCumsumLog2(const Problem &p,
                                         const std::vector<double> &gamma);

} // namespace kda::ref

#endif // KDA_REFERENCE_GATE_H
