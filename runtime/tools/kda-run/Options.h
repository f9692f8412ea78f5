//===- Options.h - command line of kda-run -----------------------*- C++ -*-===//

#ifndef KDA_RUN_OPTIONS_H
#define KDA_RUN_OPTIONS_H

#include <cstdint>
#include <string>
#include <vector>

namespace kda::run {

/// The command line of kda-run.
struct Options {
  std::string bundle;
  int64_t batch = 0, seqLen = 0, heads = 0, valueHeads = 0;
  /// Offsets given with --cu-seqlens (empty when not given).
  std::vector<int64_t> cuSeqlens;
  std::string cuSeqlensText;
  uint64_t seed = 0;
  /// bf16, f16 or f32; empty when not given.
  std::string dtype;
  /// Fraction of precomputed gates set to -1000 (--mask-p, fla's mask_p).
  double maskP = 0.0;
  /// Divisor of the logsigmoid gates (--gate-norm, fla's gate_logit_normalizer).
  double gateNorm = 1.0;
  bool cpu = false;
  bool bench = false;
  /// Also time each kernel of the bundle alone (--bench-kernels; implies
  /// --bench).
  bool benchKernels = false;
  bool noCheck = false;
  /// Add 1.0 to one checked output element before the check (--inject-error).
  bool injectError = false;
  /// Number of (sequence, head) pairs to check; 0 means all.
  int64_t checkHeads = 0;
  std::string inputsDir, outputsDir;
  bool help = false;
};

/// The usage text.
const char *usage();

/// Parses argv; on failure sets `error` to a one-line reason.
bool parseOptions(int argc, char **argv, Options &options, std::string &error);

} // namespace kda::run

#endif // KDA_RUN_OPTIONS_H
