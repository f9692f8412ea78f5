//===- Recurrent.cpp - the recurrent form of stages 4-6 -------------------===//

#include "kda/Reference/Recurrent.h"

#include "Check.h"
#include "ChunkState.h"

#include <algorithm>
#include <cmath>

namespace kda::ref {

DecayedKeys decayApply(const Problem &p, const std::vector<double> &q,
                       const std::vector<double> &k,
                       const std::vector<double> &G) {
  p.validate();
  checkSize(q, p.qkSize(), "q");
  checkSize(k, p.qkSize(), "k");
  checkSize(G, p.gateSize(), "G");
  const int64_t HV = p.HV, K = p.K;
  const double scale = p.effectiveScale();
  DecayedKeys out;
  out.qg.assign(p.gateSize(), 0.0);
  out.kd.assign(p.gateSize(), 0.0);
  out.kg.assign(p.gateSize(), 0.0);
  out.decayLast.assign(p.lastDecaySize(), 0.0);
  for (const Chunk &c : p.chunks())
    for (int64_t nu = 0; nu < HV; ++nu) {
      const double *gLast = &G[at3(c.end - 1, nu, 0, HV, K)];
      for (int64_t d = 0; d < K; ++d)
        out.decayLast[at3(c.program, nu, d, HV, K)] = std::exp2(gLast[d]);
      for (int64_t i = c.begin; i < c.end; ++i) {
        const double *qi = &q[at3(i, p.qkHead(nu), 0, p.H, K)];
        const double *ki = &k[at3(i, p.qkHead(nu), 0, p.H, K)];
        const double *gi = &G[at3(i, nu, 0, HV, K)];
        for (int64_t d = 0; d < K; ++d) {
          const int64_t at = at3(i, nu, d, HV, K);
          out.qg[at] = scale * qi[d] * std::exp2(gi[d]);
          out.kd[at] = ki[d] * std::exp2(gi[d]);
          out.kg[at] = ki[d] * std::exp2(gLast[d] - gi[d]);
        }
      }
    }
  return out;
}

RecurrentOutputs chunkRecurrence(const Problem &p, const DecayedKeys &keys,
                                 const std::vector<double> &v,
                                 const std::vector<double> &beta,
                                 const std::vector<double> &M,
                                 const std::vector<double> &Aqk,
                                 const std::vector<double> *initialState) {
  p.validate();
  checkSize(keys.qg, p.gateSize(), "qg");
  checkSize(keys.kd, p.gateSize(), "kd");
  checkSize(keys.kg, p.gateSize(), "kg");
  checkSize(v, p.valueSize(), "v");
  checkSize(beta, p.betaSize(), "beta");
  checkSize(M, p.chunkMatrixSize(), "M");
  checkSize(Aqk, p.chunkMatrixSize(), "Aqk");
  checkSize(keys.decayLast, p.lastDecaySize(), "decay_last");
  if (initialState)
    checkSize(*initialState, p.stateSize(), "initial_state");

  const int64_t HV = p.HV, K = p.K, V = p.V, BT = p.chunkSize;
  RecurrentOutputs out;
  out.o.assign(p.valueSize(), 0.0);
  if (initialState)
    out.finalState = *initialState;
  else
    out.finalState.assign(p.stateSize(), 0.0);
  const std::vector<Chunk> chunks = p.chunks();
  std::vector<double> S(K * V), x, vNew;
  for (int64_t nu = 0; nu < HV; ++nu)
    for (size_t ci = 0; ci < chunks.size(); ++ci) {
      const Chunk &c = chunks[ci];
      if (c.local == 0) // A new sequence starts from its initial state.
        startState(p, c, nu, initialState, S);
      const int64_t n = c.size();
      auto row = [&](int64_t i) { return i - c.begin; };

      // x = diag(beta) (v - kd S).
      x.assign(n * V, 0.0);
      for (int64_t i = c.begin; i < c.end; ++i) {
        const double *kdi = &keys.kd[at3(i, nu, 0, HV, K)];
        const double b = beta[i * HV + nu];
        for (int64_t vv = 0; vv < V; ++vv) {
          double acc = 0.0;
          for (int64_t kk = 0; kk < K; ++kk)
            acc += kdi[kk] * S[kk * V + vv];
          x[row(i) * V + vv] = b * (v[at3(i, nu, vv, HV, V)] - acc);
        }
      }
      // v_new = M x (M lower-triangular).
      vNew.assign(n * V, 0.0);
      for (int64_t i = c.begin; i < c.end; ++i)
        for (int64_t vv = 0; vv < V; ++vv) {
          double acc = 0.0;
          for (int64_t j = c.begin; j <= i; ++j)
            acc += M[at3(i, nu, row(j), HV, BT)] * x[row(j) * V + vv];
          vNew[row(i) * V + vv] = acc;
        }
      // o = qg S + tril0(Aqk) v_new.
      for (int64_t i = c.begin; i < c.end; ++i) {
        const double *qgi = &keys.qg[at3(i, nu, 0, HV, K)];
        for (int64_t vv = 0; vv < V; ++vv) {
          double acc = 0.0;
          for (int64_t kk = 0; kk < K; ++kk)
            acc += qgi[kk] * S[kk * V + vv];
          for (int64_t j = c.begin; j <= i; ++j)
            acc += Aqk[at3(i, nu, row(j), HV, BT)] * vNew[row(j) * V + vv];
          out.o[at3(i, nu, vv, HV, V)] = acc;
        }
      }
      // S = diag(2^{G_last}) S + kg^T v_new.
      advanceState(p, c, nu, &keys.decayLast[at3(c.program, nu, 0, HV, K)],
                   keys.kg, vNew, S);
      finishState(p, chunks, ci, nu, S, out.finalState);
    }
  return out;
}

} // namespace kda::ref
