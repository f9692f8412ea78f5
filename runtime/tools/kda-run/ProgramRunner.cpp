//===- ProgramRunner.cpp - the runner of each program key -----------------===//

#include "ProgramRunner.h"

namespace kda::run {

std::unique_ptr<ProgramRunner> makeRunner(const std::string &program) {
  if (program == "gate_cumsum")
    return makeGateCumsumRunner();
  if (program == "inter_solve")
    return makeInterSolveRunner();
  if (program == "wy_recompute")
    return makeWYRecomputeRunner();
  if (program == "output")
    return makeOutputRunner();
  if (program == "custom")
    return makeCustomRunner();
  return nullptr;
}

const char *knownPrograms() {
  return "gate_cumsum, inter_solve, wy_recompute, output, custom";
}

} // namespace kda::run
