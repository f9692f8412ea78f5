//===- LaterStage.h - what the later stages share ----------------*- C++ -*-===//
//
// The runners of kda.wy_recompute, kda.output, kda.decay_apply and
// kda.chunk_recurrence check one stage whose
// inputs are intermediates of the chunked forward (StageInputs.h). They
// share the check of the command line against the bundle (argument roles,
// dtypes, the sizes B, T, H, HV, K, V, BT, N, NT and NC), the reference problem,
// the NaN that stands for entries the kernel must not read, and the scan of
// every output element, those of the compared (sequence, head) pairs being
// compared with the reference.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUN_LATERSTAGE_H
#define KDA_RUN_LATERSTAGE_H

#include "Setup.h"
#include "StageInputs.h"
#include "StageRunner.h"

namespace kda::run {

/// The runner of a later stage (kda.wy_recompute, kda.output,
/// kda.decay_apply, kda.chunk_recurrence), less what the stage
/// computes.
class LaterStageRunner : public StageRunner {
protected:
  /// Checks the manifest's arguments against `rules` (every input present,
  /// at least one output) and the flags against the manifest, and shapes
  /// every argument, the symbols being B, T, H, HV, K, V, BT, N, NT and NC.
  /// `program` names the program in messages; `kArg` and `vArg` name the
  /// arguments whose last dimension is K and V.
  bool bindStage(const rt::Manifest &m, const char *program,
                 const std::vector<StageArg> &rules, const char *kArg,
                 const char *vArg, std::string &error);
  /// Sets `problem` (with scale and state layout as given) and picks the
  /// pairs to compare.
  void setProblem(double scale, ref::StateLayout layout);
  /// Draws the inputs of `problem` (makeStageInputs).
  StageInputs drawStageInputs(rt::DType qk, rt::DType v, rt::DType beta) const;
  /// Stores `x` ([B*T, HV, BT]) in `t` on and below the diagonal of every
  /// chunk, and NaN above it, where the kernel must not read (fla's earlier
  /// kernels never write there).
  void storeLowerTriangles(HostTensor &t, const std::vector<double> &x) const;
  /// The table row `name` of output `out` ([B*T, HV, width]): every element
  /// scanned for NaN/Inf and, unless --no-check, those of the compared
  /// pairs compared with `expected`.
  OutputStats compareRows(const char *name, double threshold,
                          const HostTensor &out,
                          const std::vector<double> &expected,
                          int64_t width) const;

  /// The reference problem of the whole bundle.
  ref::Problem problem;
};

} // namespace kda::run

#endif // KDA_RUN_LATERSTAGE_H
