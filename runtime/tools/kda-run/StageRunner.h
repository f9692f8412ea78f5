//===- StageRunner.h - the driver every stage runner shares ------*- C++ -*-===//
//
// Every runner of a kda stage (gate_cumsum, l2norm, intra_diag, ...,
// chunk_fwd) keeps the same things: the options, the problem sizes, the
// manifest index of each of its arguments, the shape of every argument, the
// header text, the (sequence, head) pairs it compares and the element that
// --inject-error changes. StageRunner holds them and answers the
// ProgramRunner calls around them, so that a stage declares only what is
// its own: how it reads the bundle (setUp), how it makes its inputs
// (makeInputs) and how it compares its outputs with its reference
// (compareOutputs).
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUN_STAGERUNNER_H
#define KDA_RUN_STAGERUNNER_H

#include "HostTensor.h"
#include "Options.h"
#include "Pairs.h"
#include "ProgramRunner.h"
#include "Report.h"

#include "kda/Reference/Problem.h"
#include "kda/Runtime/Bundle.h"

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace kda::run {

/// The host tensors of every manifest argument, in manifest order.
using Tensors = std::vector<HostTensor>;
/// The rows of the result table.
using Table = std::vector<OutputStats>;

/// The sizes of a stage's problem, fixed from the flags and the bundle; a
/// stage leaves those it does not use at their defaults.
struct StageSizes {
  /// Batch size, tokens per sequence, q/k heads and value heads.
  int64_t B = 0, T = 0, H = 0, HV = 0;
  /// Key and value head dimensions.
  int64_t K = 0, V = 0;
  /// Chunk size.
  int64_t BT = 64;
  /// Sequences (B, or those of --cu-seqlens) and chunks along h's second
  /// dimension (ceil(T / BT), or the sum over the sequences with
  /// --cu-seqlens).
  int64_t N = 0, NT = 0, NC = 0;
};

/// One row of the result table: its output name and accepted rms ratio.
struct TableRow {
  const char *name;
  double threshold;
};

/// The reference problem of `len` rows of one (sequence, value head) pair:
/// one sequence, one head, K and V wide, in chunks of `chunk` rows.
ref::Problem pairProblem(int64_t len, int64_t K, int64_t V, int64_t chunk);

/// The runner of one stage: the ProgramRunner calls that all stages answer
/// alike, around the three that each stage implements.
class StageRunner : public ProgramRunner, protected StageSizes {
public:
  /// Keeps the options and calls setUp.
  bool configure(const Options &options, const rt::Manifest &manifest,
                 std::string &error) final;
  std::string describe() const final { return description; }
  const std::vector<std::vector<int64_t>> &shapes() const final {
    return argShapes;
  }
  /// Adds 1.0 to the element setUp chose (injectAt).
  void injectError(Tensors &args) final;
  /// Says how many pairs are compared when --check-heads samples them, then
  /// calls compareOutputs.
  void check(const Tensors &args, Table &outputs) final;

protected:
  /// Checks `opt` against the manifest and fixes the problem: the sizes,
  /// `arg`, `argShapes` (within the size limits, before anything is
  /// allocated), `description`, the pairs and the element --inject-error
  /// changes.
  virtual bool setUp(const rt::Manifest &m, std::string &error) = 0;
  /// Scans the outputs for NaN/Inf and, unless --no-check, compares them
  /// with the reference computed from the inputs in `args` (as stored).
  virtual void compareOutputs(const Tensors &args, Table &outputs) = 0;

  /// Whether the bundle has the stage's argument `a`.
  bool has(int a) const { return arg[a] >= 0; }
  /// Sets `arg` to the manifest index of each of `names` (-1 when absent).
  void findArguments(const rt::Manifest &m,
                     std::initializer_list<const char *> names);
  /// Checks that the stage's arguments `required` are present ("the bundle
  /// (program=chunk_fwd) has no argument 'o'" for the first missing one).
  bool requireArguments(const char *program,
                        std::initializer_list<int> required,
                        std::string &error) const;
  /// B, T, H and HV from --batch, --seq-len, --heads and --value-heads.
  void takeFlagSizes();
  /// The sequences (`seqs`), N, NT and NC, with chunks of BT rows.
  void countChunks();
  /// Shapes every manifest argument (sizeArguments), its dimension symbols
  /// being those of `symbols` (sizes of StageSizes, and BC, the 16-row
  /// sub-chunk), and checks the size limits (checkSizes).
  bool sizeAll(const rt::Manifest &m,
               std::initializer_list<const char *> symbols, std::string &error);
  /// Checks that every present argument of the stage has the shape its
  /// name has in the table of stage tensors (kda/Reference/StageTensors.h,
  /// the declaration the compiler's verifiers and manifests use; the states
  /// in the vk layout when `vFirst`), evaluated with this runner's sizes
  /// ("the bundle's 'h' (B,NT,4,64) does not have the shape kda.state_scan
  /// gives it"). Arguments whose names are not in the table are not checked.
  bool checkShapes(const rt::Manifest &m, const char *program, bool vFirst,
                   std::string &error) const;
  /// The sequences of the problem and the (sequence, head) pairs of `heads`
  /// heads to compare (all, or --check-heads of them).
  void pickPairs(int64_t heads);
  /// The first compared pair, or null when there is none.
  const HeadPair *firstCheckedPair() const;
  /// The (row, head) index (row * HV + head) of the middle row of the first
  /// compared pair, or -1 when there is none.
  int64_t middleRowHead() const;
  /// Makes --inject-error add 1.0 to element `at` of manifest argument
  /// `index`.
  void injectAt(int index, int64_t at);
  /// Makes --inject-error add 1.0 to the first element of the middle row of
  /// the first compared pair in manifest argument `index`, laid out [rows,
  /// HV, width]; nothing when no pair is compared.
  void injectAtMiddleRow(int index, int64_t width);
  /// "B=2 T=300 H=1 HV=4 K=64", the start of the header text.
  std::string sizesText() const;
  /// " cu_seqlens=0,100,300" with --cu-seqlens, else "".
  std::string cuSeqlensText() const;
  /// The table row `name` of output `out` with every element scanned for
  /// NaN/Inf; compared (with nothing accumulated yet) unless --no-check.
  OutputStats scanOutput(const char *name, double threshold,
                         const HostTensor &out) const;
  /// Calls scanPair(pair, compare, rows) for every (sequence, head) pair in
  /// parallel, `compare` being true for the compared pairs unless
  /// --no-check, with one OutputStats per row of `table`; returns them
  /// merged in pair order, named and thresholded as `table` says.
  Table scanPairs(const std::vector<TableRow> &table,
                  const std::function<void(const HeadPair &, bool, Table &)>
                      &scanPair) const;

  /// The command line.
  Options opt;
  /// Manifest index of each of the stage's arguments (-1 when absent).
  std::vector<int> arg;
  /// Shape of every manifest argument.
  std::vector<std::vector<int64_t>> argShapes;
  /// The sequences, and the (sequence, head) pairs scanned and compared.
  std::vector<Sequence> seqs;
  PairSelection pairs;
  /// The header text ("B=2 T=300 ... seed=0").
  std::string description;

private:
  /// Names of the stage's arguments (findArguments).
  std::vector<const char *> argNames;
  /// The element --inject-error changes (none when errorAt < 0).
  int errorArg = -1;
  int64_t errorAt = -1;
};

} // namespace kda::run

#endif // KDA_RUN_STAGERUNNER_H
