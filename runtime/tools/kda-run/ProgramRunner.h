//===- ProgramRunner.h - per-program inputs and reference checks -*- C++ -*-===//
//
// kda-run dispatches on the bundle's `program` key. A runner checks the
// command line against the bundle, fixes the shape of every argument, makes
// inputs the way fla's tests do, and compares the outputs with the float64
// reference. The runners of kda stages share one driver (StageRunner.h).
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUN_PROGRAMRUNNER_H
#define KDA_RUN_PROGRAMRUNNER_H

#include "HostTensor.h"
#include "Options.h"
#include "Report.h"

#include "kda/Runtime/Bundle.h"

#include <memory>
#include <string>
#include <vector>

namespace kda::run {

/// Inputs, reference and checks of one kind of program.
class ProgramRunner {
public:
  virtual ~ProgramRunner() = default;
  /// Checks the options against the manifest and fixes all shapes (within
  /// the size limits of checkSizes, before anything is allocated).
  virtual bool configure(const Options &options, const rt::Manifest &manifest,
                         std::string &error) = 0;
  /// "B=2 T=300 HV=4 K=64 chunk=64 gate=precomputed" for the header line.
  virtual std::string describe() const = 0;
  /// The shape of every manifest argument.
  virtual const std::vector<std::vector<int64_t>> &shapes() const = 0;
  /// Fills every input argument (except cu_seqlens) with random values.
  virtual void makeInputs(std::vector<HostTensor> &args) = 0;
  /// Adds 1.0 to one output element that check() compares with the
  /// reference (--inject-error), to show that the check catches it.
  virtual void injectError(std::vector<HostTensor> &args) = 0;
  /// Compares the outputs with the reference computed from the inputs in
  /// `args` (as stored, i.e. already rounded to their dtypes).
  virtual void check(const std::vector<HostTensor> &args,
                     std::vector<OutputStats> &outputs) = 0;
};

/// The runner of `program`, or null when kda-run does not know it.
std::unique_ptr<ProgramRunner> makeRunner(const std::string &program);

/// The runner of kda.gate_cumsum programs (`gate_cumsum`).
std::unique_ptr<ProgramRunner> makeGateCumsumRunner();

/// The runner of kda.intra_diag programs (`intra_diag`).
std::unique_ptr<ProgramRunner> makeIntraDiagRunner();

/// The runner of kda.inter_solve programs (`inter_solve`).
std::unique_ptr<ProgramRunner> makeInterSolveRunner();

/// The runner of kda.l2norm programs (`l2norm`).
std::unique_ptr<ProgramRunner> makeL2NormRunner();

/// The runner of kda.beta_activation programs (`beta_activation`).
std::unique_ptr<ProgramRunner> makeBetaActivationRunner();

/// The runner of kda.chunk_fwd programs (`chunk_fwd`): the whole forward
/// against the float64 per-token recurrence.
std::unique_ptr<ProgramRunner> makeChunkFwdRunner();
/// The runner of kda.wy_recompute programs (`wy_recompute`).
std::unique_ptr<ProgramRunner> makeWYRecomputeRunner();

/// The runner of kda.output programs (`output`).
std::unique_ptr<ProgramRunner> makeOutputRunner();

/// The runner of kda.state_scan programs (`state_scan`).
std::unique_ptr<ProgramRunner> makeStateScanRunner();

/// The runner of kda.decay_apply programs (`decay_apply`).
std::unique_ptr<ProgramRunner> makeDecayApplyRunner();

/// The runner of kda.chunk_recurrence programs (`chunk_recurrence`).
std::unique_ptr<ProgramRunner> makeChunkRecurrenceRunner();

/// The runner of tile-level (`custom`) programs: no reference; needs
/// --no-check and --inputs.
std::unique_ptr<ProgramRunner> makeCustomRunner();

/// The programs makeRunner knows, comma-separated.
const char *knownPrograms();

} // namespace kda::run

#endif // KDA_RUN_PROGRAMRUNNER_H
