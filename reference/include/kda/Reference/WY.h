//===- WY.h - KDA WY recompute: w, u, kg (Stage 4) --------------*- C++ -*-===//
//
// Per chunk (local rows, value head nu, q/k head h(nu)):
//   w = M * diag(beta) * (k ⊙ 2^G)       [B,T,HV,K]
//   u = M * diag(beta) * v               [B,T,HV,V]
//   kg = k ⊙ 2^{G_last - G}              [B,T,HV,K]
// where G_last is G at the chunk's last valid row.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_WY_H
#define KDA_REFERENCE_WY_H

#include "kda/Reference/Problem.h"

#include <vector>

namespace kda::ref {

/// w [B,T,HV,K] from k [B,T,H,K], G [B,T,HV,K], beta [B,T,HV] and
/// M [B,T,HV,BT].
std::vector<double> computeW(const Problem &p, const std::vector<double> &k,
                             const std::vector<double> &G,
                             const std::vector<double> &beta,
                             const std::vector<double> &M);

/// u [B,T,HV,V] from v [B,T,HV,V], beta [B,T,HV] and M [B,T,HV,BT].
std::vector<double> computeU(const Problem &p, const std::vector<double> &v,
                             const std::vector<double> &beta,
                             const std::vector<double> &M);

/// kg [B,T,HV,K] = k ⊙ 2^{G_last - G}, per chunk, from k [B,T,H,K] and
/// G [B,T,HV,K].
std::vector<double> computeKg(const Problem &p, const std::vector<double> &k,
                              const std::vector<double> &G);

} // namespace kda::ref

#endif // KDA_REFERENCE_WY_H
