//===- Recurrent.h - the recurrent form of stages 4-6 -----------*- C++ -*-===//
//
// kda.decay_apply and kda.chunk_recurrence (kda-fuse-recurrence): the WY
// recompute, the state scan and the output rewritten so that the scan reads
// decayed queries and keys and applies the solve M itself. Per chunk
// (local rows, value head nu, q/k head h(nu)), with G_last the gate cumsum
// at the chunk's last valid row:
//   qg = scale * q ⊙ 2^G,  kd = k ⊙ 2^G,  kg = k ⊙ 2^{G_last - G},
//   decay_last = 2^{G_last}
// and, per sequence and value head from S = h0 (or 0), chunk by chunk:
//   x = diag(beta) (v - kd S),  v_new = M x  (= u - w S of stages 4-5),
//   o = qg S + tril0(Aqk) v_new,
//   S = diag(decay_last) S + kg^T v_new.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_RECURRENT_H
#define KDA_REFERENCE_RECURRENT_H

#include "kda/Reference/Problem.h"

#include <vector>

namespace kda::ref {

/// The decayed queries and keys, each [B,T,HV,K], and 2^{G_last} per
/// chunk, [B,NC,HV,K] indexed by chunk program (Chunk::program; slots of no
/// chunk are 0).
struct DecayedKeys {
  std::vector<double> qg, kd, kg, decayLast;
};

/// qg, kd, kg and decay_last from q, k [B,T,H,K] and G [B,T,HV,K], with p's
/// scale.
DecayedKeys decayApply(const Problem &p, const std::vector<double> &q,
                       const std::vector<double> &k,
                       const std::vector<double> &G);

/// What the recurrence returns.
struct RecurrentOutputs {
  /// o [B,T,HV,V].
  std::vector<double> o;
  /// final state [N,HV,K,V] (V,K with StateLayout::VK).
  std::vector<double> finalState;
};

/// The recurrence from qg, kd, kg [B,T,HV,K], v [B,T,HV,V], beta [B,T,HV],
/// decay_last [B,NC,HV,K] (in `keys`), M and Aqk [B,T,HV,BT] (entries with
/// j > i ignored) and an optional initial state [N,HV,K,V] (layout
/// p.stateLayout; zeros when null). Sequences without tokens keep their
/// initial state.
RecurrentOutputs chunkRecurrence(const Problem &p, const DecayedKeys &keys,
                                 const std::vector<double> &v,
                                 const std::vector<double> &beta,
                                 const std::vector<double> &M,
                                 const std::vector<double> &Aqk,
                                 const std::vector<double> *initialState =
                                     nullptr);

} // namespace kda::ref

#endif // KDA_REFERENCE_RECURRENT_H
