//===- ProgramRunner.cpp - the runner of each program key -----------------===//

#include "ProgramRunner.h"

namespace kda::run {

std::unique_ptr<ProgramRunner> makeRunner(const std::string &program) {
  if (program == "gate_cumsum")
    return makeGateCumsumRunner();
  if (program == "intra_diag")
    return makeIntraDiagRunner();
  if (program == "inter_solve")
    return makeInterSolveRunner();
  if (program == "l2norm")
    return makeL2NormRunner();
  if (program == "beta_activation")
    return makeBetaActivationRunner();
  if (program == "chunk_fwd")
    return makeChunkFwdRunner();
  if (program == "wy_recompute")
    return makeWYRecomputeRunner();
  if (program == "output")
    return makeOutputRunner();
  if (program == "state_scan")
    return makeStateScanRunner();
  if (program == "custom")
    return makeCustomRunner();
  return nullptr;
}

const char *knownPrograms() {
  return "gate_cumsum, intra_diag, inter_solve, wy_recompute, state_scan, "
         "output, l2norm, beta_activation, chunk_fwd, custom";
}

} // namespace kda::run
