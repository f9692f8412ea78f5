//===- Tf32Model.h - the inter_solve kernel's tf32 dot operands --*- C++
//-*-===//
//
// The inter_solve kernel computes the off-diagonal 16x16 blocks of Aqk and
// Akk with tf32 dots (fla's default for fp32-operand dots at every merge
// precision). Against the exact reference their error is the operands'
// tf32 rounding; a reference whose off-diagonal dot operands are rounded the
// same way leaves only the fp32 accumulation and the merge, which tells the
// merge precisions apart.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUN_TF32MODEL_H
#define KDA_RUN_TF32MODEL_H

#include "kda/Reference/Problem.h"

#include <vector>

namespace kda::run {

/// `x` rounded to tf32 as the kernel's tf32 dots do it (to nearest, ties
/// away from zero, like cvt.rna.tf32.f32).
float roundToTF32(float x);

/// Overwrites the off-diagonal blocks (I > J) of `aqk` and `akk`
/// ([B, T, HV, BT] of problem `p`) with what the kernel's tf32 dots compute:
/// the kernel's f32 operands (q_I * 2^(G_I - gn_I), k_I * 2^(G_I - gn_I)
/// and k_J * 2^(gn_I - G_J), with f32 subtraction, exp2 and product), gn_I
/// being G at the first row of sub-chunk I, rounded to tf32, their products
/// summed in float64, times `scale` (Aqk) or beta_i (Akk). q, k [B,T,H,K];
/// G [B,T,HV,K]; beta [B,T,HV].
void modelOffDiagonalBlocks(const ref::Problem &p, const std::vector<double> &q,
                            const std::vector<double> &k,
                            const std::vector<double> &G,
                            const std::vector<double> &beta, float scale,
                            std::vector<double> &aqk, std::vector<double> &akk);

} // namespace kda::run

#endif // KDA_RUN_TF32MODEL_H
