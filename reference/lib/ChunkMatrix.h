//===- ChunkMatrix.h - per-chunk dense matrix helpers -----------*- C++ -*-===//
//
// Internal helpers that move one chunk's square matrix for one value head
// between a [rows, HV, BT] tensor and a dense row-major L x L buffer.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_LIB_CHUNKMATRIX_H
#define KDA_REFERENCE_LIB_CHUNKMATRIX_H

#include "kda/Reference/Problem.h"

#include <vector>

namespace kda::ref {

/// Dense L x L matrix (L = c.size()) of chunk c, value head nu, read from a
/// [rows, HV, width] tensor whose column index is relative to `c.begin`.
inline std::vector<double> loadChunkMatrix(const Problem &p,
                                           const std::vector<double> &X,
                                           const Chunk &c, int64_t nu) {
  const int64_t L = c.size();
  std::vector<double> m(L * L);
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = 0; j < L; ++j)
      m[i * L + j] = X[at3(c.begin + i, nu, j, p.HV, p.chunkSize)];
  return m;
}

/// Writes a dense L x L matrix back into a [rows, HV, BT] tensor.
inline void storeChunkMatrix(const Problem &p, std::vector<double> &X,
                             const Chunk &c, int64_t nu,
                             const std::vector<double> &m) {
  const int64_t L = c.size();
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = 0; j < L; ++j)
      X[at3(c.begin + i, nu, j, p.HV, p.chunkSize)] = m[i * L + j];
}

/// (I + A)^-1 of an n x n matrix whose strictly lower part is A (everything
/// on and above the diagonal is ignored), by forward substitution:
/// D_ij = -A_ij - sum_{j<m<i} A_im D_mj, D_ii = 1. Row strides are `lda`
/// and `ldd`.
inline void unitLowerInverse(const double *A, int64_t lda, int64_t n,
                             double *D, int64_t ldd) {
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j)
      D[i * ldd + j] = i == j ? 1.0 : 0.0;
    for (int64_t j = 0; j < i; ++j) {
      double acc = -A[i * lda + j];
      for (int64_t m = j + 1; m < i; ++m)
        acc -= A[i * lda + m] * D[m * ldd + j];
      D[i * ldd + j] = acc;
    }
  }
}

} // namespace kda::ref

#endif // KDA_REFERENCE_LIB_CHUNKMATRIX_H
