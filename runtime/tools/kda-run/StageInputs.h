//===- StageInputs.h - shared setup of the later-stage runners ---*- C++ -*-===//
//
// The runners of kda.wy_recompute and kda.output check one stage whose
// inputs are intermediates of the chunked forward. They share the check of
// the command line against the bundle (argument roles, dtypes, the sizes B,
// T, H, HV, K, V, BT and NT) and the making of realistic inputs: random q,
// k, v, g, beta drawn the way fla's tests draw them, rounded to the bundle's
// dtypes, and every earlier stage run by the float64 reference on them.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUN_STAGEINPUTS_H
#define KDA_RUN_STAGEINPUTS_H

#include "HostTensor.h"
#include "Options.h"
#include "Pairs.h"
#include "Setup.h"

#include "kda/Reference/Reference.h"
#include "kda/Runtime/Bundle.h"

#include <map>
#include <string>
#include <vector>

namespace kda::run {

/// The problem of a stage bundle, fixed from the flags and the manifest.
struct StageSetup {
  /// Index of each StageArg in the manifest (-1 for an absent output).
  std::vector<int> index;
  int64_t B = 0, T = 0, H = 0, HV = 0, K = 0, V = 0, BT = 64;
  /// Total chunks along h's second dimension (ceil(T/BT), or the sum over
  /// the sequences with cu_seqlens).
  int64_t NT = 0;
  /// Shape of every manifest argument.
  std::vector<std::vector<int64_t>> shapes;
};

/// Checks the manifest's arguments against `args` (every input present,
/// at least one output) and the flags against the manifest, and sizes
/// every argument, the symbols being B, T, H, HV, K, V, BT and NT.
/// `program` names the program in messages; `kArg` and `vArg` name the
/// arguments whose last dimension is K and V.
bool configureStage(const Options &opt, const rt::Manifest &m,
                    const char *program, const std::vector<StageArg> &args,
                    const char *kArg, const char *vArg, StageSetup &setup,
                    std::string &error);

/// The reference problem of a setup (scale and state layout as given).
ref::Problem stageProblem(const StageSetup &s, const Options &opt,
                          double scale, ref::StateLayout layout);

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
