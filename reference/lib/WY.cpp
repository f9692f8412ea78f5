//===- WY.cpp - KDA WY recompute: w, u, kg (Stage 4) ----------------------===//

#include "kda/Reference/WY.h"

#include "Check.h"

#include <cmath>

namespace kda::ref {
namespace {

/// out[i] = sum_{j in chunk} M_ij * x_j for rows of width D in a
/// [rows, HV, D] tensor, where x_j = xRow(j, nu) points at D values.
template <typename RowFn>
std::vector<double> applyM(const Problem &p, const std::vector<double> &M,
                           int64_t D, RowFn xRow) {
  std::vector<double> out(p.numRows() * p.HV * D, 0.0);
  std::vector<double> xj(D);
  for (const Chunk &c : p.chunks())
    for (int64_t nu = 0; nu < p.HV; ++nu)
      for (int64_t j = c.begin; j < c.end; ++j) {
        xRow(j, nu, xj.data());
        for (int64_t i = j; i < c.end; ++i) {
          const double m = M[at3(i, nu, j - c.begin, p.HV, p.chunkSize)];
          double *oi = &out[at3(i, nu, 0, p.HV, D)];
          for (int64_t d = 0; d < D; ++d)
            oi[d] += m * xj[d];
        }
      }
  return out;
}

} // namespace

std::vector<double> computeW(const Problem &p, const std::vector<double> &k,
                             const std::vector<double> &G,
                             const std::vector<double> &beta,
                             const std::vector<double> &M) {
  p.validate();
  checkSize(k, p.qkSize(), "k");
  checkSize(G, p.gateSize(), "G");
  checkSize(beta, p.betaSize(), "beta");
  checkSize(M, p.chunkMatrixSize(), "M");
  return applyM(p, M, p.K, [&](int64_t j, int64_t nu, double *x) {
    const double *kj = &k[at3(j, p.qkHead(nu), 0, p.H, p.K)];
    const double *gj = &G[at3(j, nu, 0, p.HV, p.K)];
    const double bj = beta[at2(j, nu, p.HV)];
    for (int64_t d = 0; d < p.K; ++d)
      x[d] = bj * kj[d] * std::exp2(gj[d]);
  });
}

std::vector<double> computeU(const Problem &p, const std::vector<double> &v,
                             const std::vector<double> &beta,
                             const std::vector<double> &M) {
  p.validate();
  checkSize(v, p.valueSize(), "v");
  checkSize(beta, p.betaSize(), "beta");
  checkSize(M, p.chunkMatrixSize(), "M");
  return applyM(p, M, p.V, [&](int64_t j, int64_t nu, double *x) {
    const double *vj = &v[at3(j, nu, 0, p.HV, p.V)];
    const double bj = beta[at2(j, nu, p.HV)];
    for (int64_t d = 0; d < p.V; ++d)
      x[d] = bj * vj[d];
  });
}

std::vector<double> computeKg(const Problem &p, const std::vector<double> &k,
                              const std::vector<double> &G) {
  p.validate();
  checkSize(k, p.qkSize(), "k");
  checkSize(G, p.gateSize(), "G");
  std::vector<double> kg(p.gateSize(), 0.0);
  for (const Chunk &c : p.chunks())
    for (int64_t nu = 0; nu < p.HV; ++nu) {
      const double *gLast = &G[at3(c.end - 1, nu, 0, p.HV, p.K)];
      for (int64_t i = c.begin; i < c.end; ++i) {
        const double *ki = &k[at3(i, p.qkHead(nu), 0, p.H, p.K)];
        const double *gi = &G[at3(i, nu, 0, p.HV, p.K)];
        for (int64_t d = 0; d < p.K; ++d)
          kg[at3(i, nu, d, p.HV, p.K)] = ki[d] * std::exp2(gLast[d] - gi[d]);
      }
    }
  return kg;
}

} // namespace kda::ref
