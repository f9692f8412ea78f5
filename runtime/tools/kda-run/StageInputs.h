//===- StageInputs.h - realistic inputs of one stage -------------*- C++ -*-===//
//
// A stage whose inputs are intermediates of the chunked forward is checked
// on realistic inputs: random q, k, v, g, beta drawn the way fla's tests
// draw them, rounded to the bundle's dtypes, and every earlier stage run by
// the float64 reference on them (wy_recompute, output); or, for the stages
// of the diagonal blocks and the seed kernel (intra_diag, inter_solve), q,
// k, G and beta drawn from fla's stream in parallel pieces.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUN_STAGEINPUTS_H
#define KDA_RUN_STAGEINPUTS_H

#include "HostTensor.h"
#include "Options.h"
#include "Pairs.h"

#include "kda/Reference/Reference.h"

#include <vector>

namespace kda::run {

/// Random post-preprocessing inputs of a problem, rounded to their dtypes,
/// and every chunked stage of the float64 reference run on them.
struct StageInputs {
  /// q, k [B,T,H,K] (L2-normalized randn rows), v [B,T,HV,V] (randn).
  std::vector<double> q, k, v;
  /// G [B,T,HV,K] (f32): the chunk cumsum of g = logsigmoid(randn) /
  /// gate_norm, -1000 with probability mask_p.
  std::vector<double> G;
  /// beta [B,T,HV] = sigmoid(randn).
  std::vector<double> beta;
  /// The reference forward on these inputs.
  ref::ChunkedForward forward;
};

/// Draws the inputs of `p` from --seed, rounding q, k to `qk`, v to `v`,
/// beta to `beta` and G to f32, then runs the reference forward.
StageInputs makeStageInputs(const ref::Problem &p, const Options &opt,
                            rt::DType qk, rt::DType v, rt::DType beta);

/// The inputs of the diagonal-block and seed-kernel stages, drawn like fla's
/// tests from one stream (q, k, g, the mask, beta): q and k [B,T,H,K] rows
/// of randn, L2-normalized; G [B,T,HV,K] the chunk cumsum (chunk `chunk`)
/// of g = logsigmoid(randn) / gate_norm, -1000 with probability mask_p,
/// clamped to [-5, 0] with `safeGate`; beta [B,T,HV] = sigmoid(randn). G is
/// computed per (sequence, value head) pair of `pairs`.
void drawChunkStageInputs(const Options &opt, bool safeGate, int64_t chunk,
                          int64_t HV, int64_t K,
                          const std::vector<Sequence> &seqs,
                          const std::vector<HeadPair> &pairs, HostTensor &q,
                          HostTensor &k, HostTensor &G, HostTensor &beta);

} // namespace kda::run

#endif // KDA_RUN_STAGEINPUTS_H
