//===- Output.cpp - KDA chunk output (Stage 6) ----------------------------===//

#include "kda/Reference/Output.h"

#include "Check.h"

#include <cmath>

namespace kda::ref {

std::vector<double> chunkOutput(const Problem &p, const std::vector<double> &q,
                                const std::vector<double> &G,
                                const std::vector<double> &Aqk,
                                const std::vector<double> &h,
                                const std::vector<double> &vNew) {
  p.validate();
  checkSize(q, p.qkSize(), "q");
  checkSize(G, p.gateSize(), "G");
  checkSize(Aqk, p.chunkMatrixSize(), "Aqk");
  checkSize(h, p.chunkStateSize(), "h");
  checkSize(vNew, p.valueSize(), "v_new");
  const int64_t HV = p.HV, K = p.K, V = p.V;
  const double scale = p.effectiveScale();
  std::vector<double> o(p.valueSize(), 0.0), qg(K);
  for (const Chunk &c : p.chunks())
    for (int64_t nu = 0; nu < HV; ++nu) {
      const int64_t hOff = p.stateOffset(c.id, nu);
      for (int64_t i = c.begin; i < c.end; ++i) {
        const double *qi = &q[at3(i, p.qkHead(nu), 0, p.H, K)];
        const double *gi = &G[at3(i, nu, 0, HV, K)];
        for (int64_t kk = 0; kk < K; ++kk)
          qg[kk] = qi[kk] * std::exp2(gi[kk]);
        double *oi = &o[at3(i, nu, 0, HV, V)];
        for (int64_t vv = 0; vv < V; ++vv) {
          double inter = 0.0;
          for (int64_t kk = 0; kk < K; ++kk)
            inter += qg[kk] * h[hOff + p.stateElem(kk, vv)];
          double intra = 0.0;
          for (int64_t j = c.begin; j <= i; ++j)
            intra += Aqk[at3(i, nu, j - c.begin, HV, p.chunkSize)] *
                     vNew[at3(j, nu, vv, HV, V)];
          oi[vv] = scale * inter + intra;
        }
      }
    }
  return o;
}

} // namespace kda::ref
