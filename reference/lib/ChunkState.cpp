//===- ChunkState.cpp - the state carried across chunks -------------------===//

#include "ChunkState.h"

#include <cmath>

namespace kda::ref {

void startState(const Problem &p, const Chunk &c, int64_t nu,
                const std::vector<double> *initialState,
                std::vector<double> &S) {
  const int64_t K = p.K, V = p.V;
  for (int64_t kk = 0; kk < K; ++kk)
    for (int64_t vv = 0; vv < V; ++vv)
      S[kk * V + vv] =
          initialState
              ? (*initialState)[p.stateOffset(c.seq, nu) + p.stateElem(kk, vv)]
              : 0.0;
}

void advanceState(const Problem &p, const Chunk &c, int64_t nu,
                  const double *decay, const std::vector<double> &kg,
                  const std::vector<double> &vNew, std::vector<double> &S) {
  const int64_t HV = p.HV, K = p.K, V = p.V;
  for (int64_t kk = 0; kk < K; ++kk) {
    for (int64_t vv = 0; vv < V; ++vv) {
      double acc = decay[kk] * S[kk * V + vv];
      for (int64_t i = c.begin; i < c.end; ++i)
        acc += kg[at3(i, nu, kk, HV, K)] * vNew[(i - c.begin) * V + vv];
      S[kk * V + vv] = acc;
    }
  }
}

void finishState(const Problem &p, const std::vector<Chunk> &chunks,
                 size_t ci, int64_t nu, const std::vector<double> &S,
                 std::vector<double> &finalState) {
  const bool lastOfSeq = ci + 1 == chunks.size() || chunks[ci + 1].local == 0;
  if (!lastOfSeq)
    return;
  const Chunk &c = chunks[ci];
  for (int64_t kk = 0; kk < p.K; ++kk)
    for (int64_t vv = 0; vv < p.V; ++vv)
      finalState[p.stateOffset(c.seq, nu) + p.stateElem(kk, vv)] =
          S[kk * p.V + vv];
}

} // namespace kda::ref
