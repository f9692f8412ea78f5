//===- Recurrence.h - per-token KDA recurrence (ground truth) ---*- C++ -*-===//
//
// fla's naive_recurrent_kda in float64: for every sequence and value head,
//   S <- diag(e^{g_t}) S;  S <- S + beta_t k_t (v_t - S^T k_t)^T;
//   o_t = scale * S^T q_t.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_RECURRENCE_H
#define KDA_REFERENCE_RECURRENCE_H

#include "kda/Reference/Problem.h"

#include <vector>

namespace kda::ref {

/// Outputs of a KDA forward.
struct ForwardResult {
  /// o [B,T,HV,V].
  std::vector<double> o;
  /// Final state [N,HV,K,V] (or [N,HV,V,K] with StateLayout::VK).
  std::vector<double> finalState;
};

/// The per-token recurrence on post-preprocessing inputs: q, k [B,T,H,K],
/// v [B,T,HV,V], natural-log gate g [B,T,HV,K], beta [B,T,HV], optional
/// initial state [N,HV,K,V] (layout p.stateLayout; zeros when null). Value
/// head nu reads q/k head nu / (HV/H); varlen restarts at every sequence.
ForwardResult recurrentForward(const Problem &p, const std::vector<double> &q,
                               const std::vector<double> &k,
                               const std::vector<double> &v,
                               const std::vector<double> &g,
                               const std::vector<double> &beta,
                               const std::vector<double> *initialState =
                                   nullptr);

/// Converts a state tensor ([slots,HV,K,V] <-> [slots,HV,V,K]) between
/// layouts; `slots` is N for h0/ht and the number of chunks for h.
std::vector<double> transposeStates(const std::vector<double> &s, int64_t K,
                                    int64_t V, StateLayout from);

} // namespace kda::ref

#endif // KDA_REFERENCE_RECURRENCE_H
