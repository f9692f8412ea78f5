//===- ProgramRunner.cpp - the runner of each program key -----------------===//

#include "ProgramRunner.h"

namespace kda::run {

namespace {

/// A program key and the function that makes its runner.
struct RunnerEntry {
  const char *program;
  std::unique_ptr<ProgramRunner> (*make)();
};

/// Every runner, in the order knownPrograms lists them.
const RunnerEntry kRunners[] = {
    {"gate_cumsum", makeGateCumsumRunner},
    {"intra_diag", makeIntraDiagRunner},
    {"inter_solve", makeInterSolveRunner},
    {"wy_recompute", makeWYRecomputeRunner},
    {"state_scan", makeStateScanRunner},
    {"output", makeOutputRunner},
    {"decay_apply", makeDecayApplyRunner},
    {"chunk_recurrence", makeChunkRecurrenceRunner},
    {"l2norm", makeL2NormRunner},
    {"beta_activation", makeBetaActivationRunner},
    {"chunk_fwd", makeChunkFwdRunner},
    {"custom", makeCustomRunner},
};

} // namespace

std::unique_ptr<ProgramRunner> makeRunner(const std::string &program) {
  for (const RunnerEntry &entry : kRunners)
    if (program == entry.program)
      return entry.make();
  return nullptr;
}

const char *knownPrograms() {
  static const std::string names = [] {
    std::string list;
    for (const RunnerEntry &entry : kRunners)
      list += (list.empty() ? "" : ", ") + std::string(entry.program);
    return list;
  }();
  return names.c_str();
}

} // namespace kda::run
