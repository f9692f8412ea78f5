//===- Gates.h - the gates kda-run draws and checks --------------*- C++ -*-===//
//
// The gate of a kda bundle is precomputed (logsigmoid gates come as input)
// or activated in the kernel (softplus or lower_bound, with optional A_log
// and dt_bias). The gate_cumsum and chunk_fwd runners read it from the same
// keys, draw it the way fla's tests do and hand the same per-head options
// to the reference; the later stages draw precomputed gates only.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUN_GATES_H
#define KDA_RUN_GATES_H

#include "HostTensor.h"
#include "Options.h"
#include "RandomStream.h"

#include "kda/Reference/Reference.h"
#include "kda/Runtime/Bundle.h"

#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace kda::run {

/// Draws precomputed gates the way fla's tests do: put(i, logsigmoid(x) /
/// gate_norm) for every draw x of `gates`, then, with --mask-p,
/// put(i, -1000) where draw i of `mask` is below mask_p. `put` must be safe
/// to call concurrently for different i.
void drawPrecomputedGates(const Options &opt, const RandomSegment &gates,
                          const RandomSegment &mask,
                          const std::function<void(int64_t, double)> &put);

/// The gate of a gate_cumsum or chunk_fwd bundle.
struct BundleGate {
  /// The bundle's key gate (precomputed when absent).
  std::string name = "precomputed";
  ref::GateMode mode = ref::GateMode::Precomputed;
  /// The bundle's key lower_bound (for gate=lower_bound).
  double lowerBound = -5.0;
  /// Manifest indices of the arguments a_log and dt_bias (-1 when absent).
  int aLogArg = -1, dtBiasArg = -1;

  /// Reads the key gate; false when it names no gate mode.
  bool readMode(const rt::Manifest &m);
  /// --mask-p and --gate-norm shape precomputed gates only ("--mask-p and
  /// --gate-norm apply to precomputed gates; the bundle's gate is softplus").
  bool checkFlags(const Options &opt, std::string &error) const;
  /// Draws the gate inputs from `stream` the way fla's tests do: into `g`,
  /// precomputed gates (drawPrecomputedGates) raised to at least `floor`;
  /// for a gate activated in the kernel, standard normal g, then A_log and
  /// dt_bias (those present).
  void draw(const Options &opt, RandomStream &stream, HostTensor &g,
            std::vector<HostTensor> &args,
            double floor = -std::numeric_limits<double>::infinity()) const;
  /// The reference's gate options for value head `head` of gates K wide,
  /// pointing into `aLog` and `dtBias`, which receive that head's A_log and
  /// dt_bias (when present).
  ref::GateOptions headOptions(const std::vector<HostTensor> &args,
                               int64_t head, int64_t K,
                               std::vector<double> &aLog,
                               std::vector<double> &dtBias) const;
};

} // namespace kda::run

#endif // KDA_RUN_GATES_H
