//===- Pipeline.h - the whole KDA chunked forward in float64 ----*- C++ -*-===//
//
// Chains the stage functions: G -> Aqk, Akkd, Akk -> M -> w, u, kg ->
// h, v_new, final state -> o, keeping every intermediate.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_PIPELINE_H
#define KDA_REFERENCE_PIPELINE_H

#include "kda/Reference/Problem.h"

#include <vector>

namespace kda::ref {

/// Every tensor of one chunked forward (shapes as in the stage headers).
struct ChunkedForward {
  /// G [B,T,HV,K], chunk-local cumsum of the gate in log2 units.
  std::vector<double> G;
  /// Aqk [B,T,HV,BT].
  std::vector<double> Aqk;
  /// Akkd [B,T,HV,16], diagonal blocks of Akk.
  std::vector<double> Akkd;
  /// Akk [B,T,HV,BT], beta-scaled, strictly lower.
  std::vector<double> Akk;
  /// M [B,T,HV,BT] = (I + Akk)^-1 per chunk.
  std::vector<double> M;
  /// w [B,T,HV,K].
  std::vector<double> w;
  /// u [B,T,HV,V].
  std::vector<double> u;
  /// kg [B,T,HV,K].
  std::vector<double> kg;
  /// h [B,NT,HV,K,V] (layout p.stateLayout).
  std::vector<double> h;
  /// v_new [B,T,HV,V].
  std::vector<double> vNew;
  /// o [B,T,HV,V].
  std::vector<double> o;
  /// final state [N,HV,K,V] (layout p.stateLayout).
  std::vector<double> finalState;
};

/// Runs every chunked stage from post-preprocessing q, k [B,T,H,K],
/// v [B,T,HV,V], G [B,T,HV,K] (output of gateCumsum), beta [B,T,HV] and an
/// optional initial state [N,HV,K,V] (layout p.stateLayout).
ChunkedForward chunkedForward(const Problem &p, const std::vector<double> &q,
                              const std::vector<double> &k,
                              const std::vector<double> &v,
                              const std::vector<double> &G,
                              const std::vector<double> &beta,
                              const std::vector<double> *initialState =
                                  nullptr);

} // namespace kda::ref

#endif // KDA_REFERENCE_PIPELINE_H
