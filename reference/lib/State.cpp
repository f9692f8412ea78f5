//===- State.cpp - KDA inter-chunk state recurrence (Stage 5) -------------===//

#include "kda/Reference/State.h"

#include "Check.h"
#include "ChunkState.h"

#include <cmath>

namespace kda::ref {

ChunkStates chunkStates(const Problem &p, const std::vector<double> &w,
                        const std::vector<double> &u,
                        const std::vector<double> &kg,
                        const std::vector<double> &G,
                        const std::vector<double> *initialState) {
  p.validate();
  checkSize(w, p.gateSize(), "w");
  checkSize(u, p.valueSize(), "u");
  checkSize(kg, p.gateSize(), "kg");
  checkSize(G, p.gateSize(), "G");
  if (initialState)
    checkSize(*initialState, p.stateSize(), "initial_state");

  const int64_t HV = p.HV, K = p.K, V = p.V;
  ChunkStates out;
  out.h.assign(p.chunkStateSize(), 0.0);
  out.vNew.assign(p.valueSize(), 0.0);
  // Sequences without tokens keep their initial state.
  if (initialState)
    out.finalState = *initialState;
  else
    out.finalState.assign(p.stateSize(), 0.0);
  const std::vector<Chunk> chunks = p.chunks();
  std::vector<double> S(K * V), Vn;
  for (int64_t nu = 0; nu < HV; ++nu)
    for (size_t ci = 0; ci < chunks.size(); ++ci) {
      const Chunk &c = chunks[ci];
      if (c.local == 0) // A new sequence starts from its initial state.
        startState(p, c, nu, initialState, S);
      for (int64_t kk = 0; kk < K; ++kk)
        for (int64_t vv = 0; vv < V; ++vv)
          out.h[p.stateOffset(c.id, nu) + p.stateElem(kk, vv)] =
              S[kk * V + vv];

      // Vn = u - w S.
      Vn.assign(c.size() * V, 0.0);
      for (int64_t i = c.begin; i < c.end; ++i) {
        const double *wi = &w[at3(i, nu, 0, HV, K)];
        const double *ui = &u[at3(i, nu, 0, HV, V)];
        double *vn = &Vn[(i - c.begin) * V];
        for (int64_t vv = 0; vv < V; ++vv) {
          double acc = 0.0;
          for (int64_t kk = 0; kk < K; ++kk)
            acc += wi[kk] * S[kk * V + vv];
          vn[vv] = ui[vv] - acc;
          out.vNew[at3(i, nu, vv, HV, V)] = vn[vv];
        }
      }

      // S = diag(2^{G_last}) S + kg^T Vn.
      const double *gLast = &G[at3(c.end - 1, nu, 0, p.HV, p.K)];
      std::vector<double> decay(gLast, gLast + p.K);
      for (double &factor : decay)
        factor = std::exp2(factor);
      advanceState(p, c, nu, decay.data(), kg, Vn, S);
      finishState(p, chunks, ci, nu, S, out.finalState);
    }
  return out;
}

} // namespace kda::ref
