//===- ChunkState.h - the state carried across chunks -----------*- C++ -*-===//
//
// What the two scans of the reference (State.cpp's stages 4-5 and
// Recurrent.cpp's recurrent form) share: the state S [K x V] (row-major) of
// one value head entering a sequence, its update at the end of each chunk,
// and the final state of each sequence.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_LIB_CHUNKSTATE_H
#define KDA_REFERENCE_LIB_CHUNKSTATE_H

#include "kda/Reference/Problem.h"

#include <vector>

namespace kda::ref {

/// Sets S to the state value head `nu` starts chunk `c`'s sequence with:
/// `initialState` [N,HV,K,V] (layout p.stateLayout) or 0.
void startState(const Problem &p, const Chunk &c, int64_t nu,
                const std::vector<double> *initialState,
                std::vector<double> &S);

/// S = diag(2^{G_last}) S + kg^T vNew for chunk `c` of value head `nu`,
/// `decay` pointing at the K factors 2^{G_last} (G_last being G at the
/// chunk's last row), kg [B,T,HV,K] and vNew the chunk's rows [c.size() x
/// V].
void advanceState(const Problem &p, const Chunk &c, int64_t nu,
                  const double *decay, const std::vector<double> &kg,
                  const std::vector<double> &vNew, std::vector<double> &S);

/// Stores S as the final state [N,HV,K,V] (layout p.stateLayout) of the
/// sequence of `chunks[ci]` when that chunk is its sequence's last.
void finishState(const Problem &p, const std::vector<Chunk> &chunks,
                 size_t ci, int64_t nu, const std::vector<double> &S,
                 std::vector<double> &finalState);

} // namespace kda::ref

#endif // KDA_REFERENCE_LIB_CHUNKSTATE_H
