//===- Output.h - KDA chunk output (Stage 6) --------------------*- C++ -*-===//
//
// Per chunk: O = scale * (q ⊙ 2^G) h_c + tril0(Aqk) v_new (Aqk already holds
// the scale). Rows past the end of a sequence do not exist.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_OUTPUT_H
#define KDA_REFERENCE_OUTPUT_H

#include "kda/Reference/Problem.h"

#include <vector>

namespace kda::ref {

/// o [B,T,HV,V] from q [B,T,H,K], G [B,T,HV,K], Aqk [B,T,HV,BT] (entries
/// with j > i are ignored), h [B,NT,HV,K,V] (layout p.stateLayout) and
/// v_new [B,T,HV,V].
std::vector<double> chunkOutput(const Problem &p, const std::vector<double> &q,
                                const std::vector<double> &G,
                                const std::vector<double> &Aqk,
                                const std::vector<double> &h,
                                const std::vector<double> &vNew);

} // namespace kda::ref

#endif // KDA_REFERENCE_OUTPUT_H
