//===- State.h - KDA inter-chunk state recurrence (Stage 5) -----*- C++ -*-===//
//
// Per sequence n and value head nu, with S = h0[n,nu] (or 0):
//   for each chunk c: h[id(c)] = S;  Vn = u_c - w_c S;  v_new_c = Vn;
//                     S = diag(2^{G_last}) S + kg_c^T Vn
//   final_state[n,nu] = S.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_STATE_H
#define KDA_REFERENCE_STATE_H

#include "kda/Reference/Problem.h"

#include <vector>

namespace kda::ref {

/// Outputs of the inter-chunk state recurrence.
struct ChunkStates {
  /// h [B,NT,HV,K,V] (V,K with StateLayout::VK): the state entering each
  /// chunk, indexed by global chunk id.
  std::vector<double> h;
  /// v_new [B,T,HV,V] = u - w * S per chunk.
  std::vector<double> vNew;
  /// final state [N,HV,K,V] (V,K with StateLayout::VK).
  std::vector<double> finalState;
};

/// Stage 5 from w, kg [B,T,HV,K], u [B,T,HV,V], G [B,T,HV,K] and an optional
/// initial state [N,HV,K,V] (layout p.stateLayout; zeros when null).
ChunkStates chunkStates(const Problem &p, const std::vector<double> &w,
                        const std::vector<double> &u,
                        const std::vector<double> &kg,
                        const std::vector<double> &G,
                        const std::vector<double> *initialState = nullptr);

} // namespace kda::ref

#endif // KDA_REFERENCE_STATE_H
