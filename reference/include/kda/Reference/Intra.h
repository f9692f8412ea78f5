//===- Intra.h - KDA intra-chunk score matrices (Stages 2, 3.1) -*- C++ -*-===//
//
// For local rows i, j of one chunk (value head nu, q/k head h(nu)):
//   Aqk_ij = scale * sum_d q_i,d k_j,d 2^{G_i,d - G_j,d}     (i >= j)
//   Akk_ij = beta_i * sum_d k_i,d k_j,d 2^{G_i,d - G_j,d}    (i > j)
// Entries outside these masks, and rows past the end of a sequence, are 0.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_INTRA_H
#define KDA_REFERENCE_INTRA_H

#include "kda/Reference/Problem.h"

#include <vector>

namespace kda::ref {

/// Aqk [B,T,HV,BT]: column = local column j in the chunk, entries i >= j
/// (diagonal included), scale applied. q, k [B,T,H,K]; G [B,T,HV,K] (log2).
std::vector<double> computeAqk(const Problem &p, const std::vector<double> &q,
                               const std::vector<double> &k,
                               const std::vector<double> &G);

/// Akk [B,T,HV,BT]: beta-scaled (by the row token), strictly lower within
/// each chunk, all blocks. beta [B,T,HV].
std::vector<double> computeAkk(const Problem &p, const std::vector<double> &k,
                               const std::vector<double> &G,
                               const std::vector<double> &beta);

/// Akkd [B,T,HV,16]: the 16x16 diagonal blocks of Akk, column = column j
/// within the sub-chunk; strictly lower, 0 on and above the diagonal.
std::vector<double> computeAkkDiag(const Problem &p,
                                   const std::vector<double> &k,
                                   const std::vector<double> &G,
                                   const std::vector<double> &beta);

/// Start row of the 16-row sub-chunk of `c` that holds `row`.
inline int64_t subChunkStart(const Chunk &c, int64_t row) {
  return c.begin + (row - c.begin) / kSubChunk * kSubChunk;
}

} // namespace kda::ref

#endif // KDA_REFERENCE_INTRA_H
