//===- Intra.cpp - KDA intra-chunk score matrices (Stages 2, 3.1) ---------===//

#include "kda/Reference/Intra.h"

#include "Check.h"

#include <cmath>

namespace kda::ref {
namespace {

/// sum_d a_i,d b_j,d 2^{G_i,d - G_j,d}, with a, b rows of q/k head hq.
double decayedDot(const Problem &p, const std::vector<double> &a,
                  const std::vector<double> &b, const std::vector<double> &G,
                  int64_t i, int64_t j, int64_t nu) {
  const int64_t hq = p.qkHead(nu);
  const double *ai = &a[at3(i, hq, 0, p.H, p.K)];
  const double *bj = &b[at3(j, hq, 0, p.H, p.K)];
  const double *gi = &G[at3(i, nu, 0, p.HV, p.K)];
  const double *gj = &G[at3(j, nu, 0, p.HV, p.K)];
  double acc = 0.0;
  for (int64_t d = 0; d < p.K; ++d)
    acc += ai[d] * bj[d] * std::exp2(gi[d] - gj[d]);
  return acc;
}

void checkInputs(const Problem &p, const std::vector<double> &k,
                 const std::vector<double> &G) {
  p.validate();
  checkSize(k, p.qkSize(), "k");
  checkSize(G, p.gateSize(), "G");
}

} // namespace

std::vector<double> computeAqk(const Problem &p, const std::vector<double> &q,
                               const std::vector<double> &k,
                               const std::vector<double> &G) {
  checkInputs(p, k, G);
  checkSize(q, p.qkSize(), "q");
  const double scale = p.effectiveScale();
  std::vector<double> A(p.chunkMatrixSize(), 0.0);
  for (const Chunk &c : p.chunks())
    for (int64_t i = c.begin; i < c.end; ++i)
      for (int64_t nu = 0; nu < p.HV; ++nu)
        for (int64_t j = c.begin; j <= i; ++j)
          A[at3(i, nu, j - c.begin, p.HV, p.chunkSize)] =
              scale * decayedDot(p, q, k, G, i, j, nu);
  return A;
}

std::vector<double> computeAkk(const Problem &p, const std::vector<double> &k,
                               const std::vector<double> &G,
                               const std::vector<double> &beta) {
  checkInputs(p, k, G);
  checkSize(beta, p.betaSize(), "beta");
  std::vector<double> A(p.chunkMatrixSize(), 0.0);
  for (const Chunk &c : p.chunks())
    for (int64_t i = c.begin; i < c.end; ++i)
      for (int64_t nu = 0; nu < p.HV; ++nu)
        for (int64_t j = c.begin; j < i; ++j)
          A[at3(i, nu, j - c.begin, p.HV, p.chunkSize)] =
              beta[at2(i, nu, p.HV)] * decayedDot(p, k, k, G, i, j, nu);
  return A;
}

std::vector<double> computeAkkDiag(const Problem &p,
                                   const std::vector<double> &k,
                                   const std::vector<double> &G,
                                   const std::vector<double> &beta) {
  checkInputs(p, k, G);
  checkSize(beta, p.betaSize(), "beta");
  std::vector<double> A(p.numRows() * p.HV * kSubChunk, 0.0);
  for (const Chunk &c : p.chunks())
    for (int64_t i = c.begin; i < c.end; ++i) {
      const int64_t s0 = subChunkStart(c, i);
      for (int64_t nu = 0; nu < p.HV; ++nu)
        for (int64_t j = s0; j < i; ++j)
          A[at3(i, nu, j - s0, p.HV, kSubChunk)] =
              beta[at2(i, nu, p.HV)] * decayedDot(p, k, k, G, i, j, nu);
    }
  return A;
}

} // namespace kda::ref
