//===- Solve.h - KDA per-chunk unit-lower inverse (Stage 3) -----*- C++ -*-===//
//
// M = (I + Akk)^-1 for every chunk and value head, over the chunk's valid
// rows only (a tail chunk of L rows gives an L x L inverse). M is unit lower
// triangular; entries above the diagonal and past the valid rows are 0.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_SOLVE_H
#define KDA_REFERENCE_SOLVE_H

#include "kda/Reference/Problem.h"

#include <vector>

namespace kda::ref {

/// M [B,T,HV,BT] = (I + Akk)^-1 per chunk by dense forward substitution.
/// Akk [B,T,HV,BT]: only its strictly lower part is read.
std::vector<double> solveTril(const Problem &p, const std::vector<double> &Akk);

/// D [B,T,HV,16]: (I + A_s)^-1 of every 16x16 diagonal block of Akkd
/// [B,T,HV,16] (only its strictly lower part is read; a tail sub-chunk uses
/// its valid rows). Unit diagonal, zeros above. This is what fla's safe-gate
/// path stores back into Akkd.
std::vector<double> invertDiagonalBlocks(const Problem &p,
                                         const std::vector<double> &Akkd);

/// M [B,T,HV,BT] by the kernel's block algorithm: diagonal blocks
/// D_I = (I + Akkd_I)^-1 from Akkd, then the block merge
/// M_IJ = -D_I * sum_{m=J..I-1} Akk_Im M_mJ with the off-diagonal 16x16
/// blocks of Akk (I > J).
std::vector<double> solveTrilBlocked(const Problem &p,
                                     const std::vector<double> &Akkd,
                                     const std::vector<double> &Akk);

/// max |M (I + Akk) - I| over the valid L x L block of every chunk and head
/// (Akk's strictly lower part is used).
double inverseResidual(const Problem &p, const std::vector<double> &M,
                       const std::vector<double> &Akk);

} // namespace kda::ref

#endif // KDA_REFERENCE_SOLVE_H
