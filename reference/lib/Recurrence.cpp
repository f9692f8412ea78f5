//===- Recurrence.cpp - per-token KDA recurrence (ground truth) -----------===//

#include "kda/Reference/Recurrence.h"

#include "Check.h"

#include <cmath>

namespace kda::ref {

std::vector<double> transposeStates(const std::vector<double> &s, int64_t K,
                                    int64_t V, StateLayout from) {
  std::vector<double> t(s.size());
  int64_t mats = static_cast<int64_t>(s.size()) / (K * V);
  for (int64_t m = 0; m < mats; ++m)
    for (int64_t kk = 0; kk < K; ++kk)
      for (int64_t vv = 0; vv < V; ++vv) {
        int64_t kv = m * K * V + kk * V + vv, vk = m * K * V + vv * K + kk;
        if (from == StateLayout::KV)
          t[vk] = s[kv];
        else
          t[kv] = s[vk];
      }
  return t;
}

ForwardResult recurrentForward(const Problem &p, const std::vector<double> &q,
                               const std::vector<double> &k,
                               const std::vector<double> &v,
                               const std::vector<double> &g,
                               const std::vector<double> &beta,
                               const std::vector<double> *initialState) {
  p.validate();
  checkSize(q, p.qkSize(), "q");
  checkSize(k, p.qkSize(), "k");
  checkSize(v, p.valueSize(), "v");
  checkSize(g, p.gateSize(), "g");
  checkSize(beta, p.betaSize(), "beta");
  if (initialState)
    checkSize(*initialState, p.stateSize(), "initial_state");

  const int64_t H = p.H, HV = p.HV, K = p.K, V = p.V;
  const double scale = p.effectiveScale();
  ForwardResult res;
  res.o.assign(p.valueSize(), 0.0);
  res.finalState.assign(p.stateSize(), 0.0);
  std::vector<double> S(K * V), kS(V);
  std::vector<Sequence> seqs = p.sequences();
  for (int64_t n = 0; n < static_cast<int64_t>(seqs.size()); ++n)
    for (int64_t nu = 0; nu < HV; ++nu) {
      const int64_t hq = p.qkHead(nu), base = p.stateOffset(n, nu);
      for (int64_t kk = 0; kk < K; ++kk)
        for (int64_t vv = 0; vv < V; ++vv)
          S[kk * V + vv] =
              initialState ? (*initialState)[base + p.stateElem(kk, vv)] : 0.0;
      for (int64_t t = seqs[n].begin; t < seqs[n].end; ++t) {
        const double *qt = &q[at3(t, hq, 0, H, K)];
        const double *kt = &k[at3(t, hq, 0, H, K)];
        const double *vt = &v[at3(t, nu, 0, HV, V)];
        const double *gt = &g[at3(t, nu, 0, HV, K)];
        const double bt = beta[at2(t, nu, HV)];
        for (int64_t kk = 0; kk < K; ++kk) {
          double decay = std::exp(gt[kk]);
          for (int64_t vv = 0; vv < V; ++vv)
            S[kk * V + vv] *= decay;
        }
        for (int64_t vv = 0; vv < V; ++vv) {
          double acc = 0.0;
          for (int64_t kk = 0; kk < K; ++kk)
            acc += S[kk * V + vv] * kt[kk];
          kS[vv] = vt[vv] - acc;
        }
        for (int64_t kk = 0; kk < K; ++kk)
          for (int64_t vv = 0; vv < V; ++vv)
            S[kk * V + vv] += bt * kt[kk] * kS[vv];
        double *ot = &res.o[at3(t, nu, 0, HV, V)];
        for (int64_t vv = 0; vv < V; ++vv) {
          double acc = 0.0;
          for (int64_t kk = 0; kk < K; ++kk)
            acc += S[kk * V + vv] * qt[kk];
          ot[vv] = scale * acc;
        }
      }
      for (int64_t kk = 0; kk < K; ++kk)
        for (int64_t vv = 0; vv < V; ++vv)
          res.finalState[base + p.stateElem(kk, vv)] = S[kk * V + vv];
    }
  return res;
}

} // namespace kda::ref
