//===- Solve.cpp - KDA per-chunk unit-lower inverse (Stage 3) -------------===//

#include "kda/Reference/Solve.h"

#include "ChunkMatrix.h"
#include "Check.h"

#include <algorithm>
#include <cmath>

namespace kda::ref {

std::vector<double> solveTril(const Problem &p,
                              const std::vector<double> &Akk) {
  p.validate();
  checkSize(Akk, p.chunkMatrixSize(), "Akk");
  std::vector<double> M(Akk.size(), 0.0);
  for (const Chunk &c : p.chunks())
    for (int64_t nu = 0; nu < p.HV; ++nu) {
      const int64_t L = c.size();
      std::vector<double> A = loadChunkMatrix(p, Akk, c, nu), D(L * L);
      unitLowerInverse(A.data(), L, L, D.data(), L);
      storeChunkMatrix(p, M, c, nu, D);
    }
  return M;
}

std::vector<double> invertDiagonalBlocks(const Problem &p,
                                         const std::vector<double> &Akkd) {
  p.validate();
  checkSize(Akkd, p.numRows() * p.HV * kSubChunk, "Akkd");
  std::vector<double> D(Akkd.size(), 0.0);
  const int64_t ld = p.HV * kSubChunk; // row stride of a [rows,HV,16] tensor
  for (const Chunk &c : p.chunks())
    for (int64_t s0 = c.begin; s0 < c.end; s0 += kSubChunk) {
      const int64_t n = std::min(kSubChunk, c.end - s0);
      for (int64_t nu = 0; nu < p.HV; ++nu) {
        const int64_t off = at3(s0, nu, 0, p.HV, kSubChunk);
        unitLowerInverse(&Akkd[off], ld, n, &D[off], ld);
      }
    }
  return D;
}

std::vector<double> solveTrilBlocked(const Problem &p,
                                     const std::vector<double> &Akkd,
                                     const std::vector<double> &Akk) {
  p.validate();
  checkSize(Akk, p.chunkMatrixSize(), "Akk");
  std::vector<double> Dall = invertDiagonalBlocks(p, Akkd);
  std::vector<double> M(Akk.size(), 0.0);
  const int64_t BC = kSubChunk;
  for (const Chunk &c : p.chunks())
    for (int64_t nu = 0; nu < p.HV; ++nu) {
      const int64_t L = c.size(), NC = (L + BC - 1) / BC;
      std::vector<double> A = loadChunkMatrix(p, Akk, c, nu);
      std::vector<double> Mc(L * L, 0.0), acc(BC * BC);
      auto rows = [&](int64_t I) { return std::min(BC, L - I * BC); };
      for (int64_t I = 0; I < NC; ++I) {
        const int64_t nI = rows(I), r0 = I * BC;
        // M_II = D_I.
        for (int64_t i = 0; i < nI; ++i)
          for (int64_t j = 0; j < nI; ++j)
            Mc[(r0 + i) * L + r0 + j] =
                Dall[at3(c.begin + r0 + i, nu, j, p.HV, BC)];
        // M_IJ = -D_I * (sum_{m=J..I-1} A_Im M_mJ), J < I.
        for (int64_t J = 0; J < I; ++J) {
          const int64_t c0 = J * BC, nJ = rows(J);
          std::fill(acc.begin(), acc.end(), 0.0);
          for (int64_t i = 0; i < nI; ++i)
            for (int64_t col = r0 - 1; col >= c0; --col)
              for (int64_t j = 0; j < nJ; ++j)
                acc[i * BC + j] +=
                    A[(r0 + i) * L + col] * Mc[col * L + c0 + j];
          for (int64_t i = 0; i < nI; ++i)
            for (int64_t j = 0; j < nJ; ++j) {
              double s = 0.0;
              for (int64_t m = 0; m <= i; ++m)
                s += Mc[(r0 + i) * L + r0 + m] * acc[m * BC + j];
              Mc[(r0 + i) * L + c0 + j] = -s;
            }
        }
      }
      storeChunkMatrix(p, M, c, nu, Mc);
    }
  return M;
}

double inverseResidual(const Problem &p, const std::vector<double> &M,
                       const std::vector<double> &Akk) {
  p.validate();
  checkSize(M, p.chunkMatrixSize(), "M");
  checkSize(Akk, p.chunkMatrixSize(), "Akk");
  double worst = 0.0;
  for (const Chunk &c : p.chunks())
    for (int64_t nu = 0; nu < p.HV; ++nu) {
      const int64_t L = c.size();
      std::vector<double> Mc = loadChunkMatrix(p, M, c, nu);
      std::vector<double> A = loadChunkMatrix(p, Akk, c, nu);
      for (int64_t i = 0; i < L; ++i)
        for (int64_t j = 0; j < L; ++j) {
          // (M (I + tril-1(A)))_ij = M_ij + sum_{m > j} M_im A_mj.
          double s = Mc[i * L + j];
          for (int64_t m = j + 1; m < L; ++m)
            s += Mc[i * L + m] * A[m * L + j];
          worst = std::max(worst, std::fabs(s - (i == j ? 1.0 : 0.0)));
        }
    }
  return worst;
}

} // namespace kda::ref
