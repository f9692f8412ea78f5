//===- Preprocess.cpp - kda-run for program=l2norm and beta_activation ----===//
//
// The preprocessing stages (kda-algorithm.md stage P). l2norm: input x
// [B,T,H,K] (the bundle's dtype, standard normal like fla's q and k),
// output x_norm of the same shape and dtype, against kda::ref::l2normRows.
// beta_activation: input beta_raw [B,T,HV] (standard normal logits), output
// beta [B,T,HV] f32, against kda::ref::betaSigmoid. Both are row maps, so
// every element is checked (--check-heads does not apply).
//
//===----------------------------------------------------------------------===//

#include "RandomStream.h"
#include "Setup.h"
#include "StageRunner.h"

#include "kda/Reference/Reference.h"

#include <cmath>

namespace kda::run {

namespace {

/// The largest accepted RMS ratio of an output stored as `dtype`: its
/// rounding (about 2^-9 relative for bf16, 2^-12 for f16, RMS a third of
/// that) with a margin, and f32 math (expf, sqrtf) for f32 outputs.
double roundingThreshold(rt::DType dtype) {
  switch (dtype) {
  case rt::DType::BF16:
    return 5e-3;
  case rt::DType::F16:
    return 1e-3;
  default:
    return 1e-5;
  }
}

/// The two arguments of a preprocessing bundle: its input and its output.
enum Arg { In, Out };

/// kda.l2norm or kda.beta_activation.
class PreprocessRunner : public StageRunner {
public:
  explicit PreprocessRunner(bool l2norm) : l2norm(l2norm) {}

private:
  bool setUp(const rt::Manifest &m, std::string &error) override;
  void makeInputs(Tensors &args) override {
    HostTensor &x = args[arg[In]];
    RandomStream(opt.seed).normals(x.size()).drawInto(x);
  }
  void compareOutputs(const Tensors &args, Table &outputs) override;

  bool l2norm;
  bool allowNegEigval = false;
};

bool PreprocessRunner::setUp(const rt::Manifest &m, std::string &error) {
  const char *program = l2norm ? "l2norm" : "beta_activation";
  const int rank = l2norm ? 4 : 3;
  arg.assign(2, -1);
  for (size_t i = 0; i < m.args.size(); ++i) {
    if (m.args[i].role == rt::ArgRole::Input && arg[In] < 0)
      arg[In] = static_cast<int>(i);
    if (m.args[i].role == rt::ArgRole::Output && arg[Out] < 0)
      arg[Out] = static_cast<int>(i);
  }
  if (!has(In) || !has(Out) || m.args.size() != 2 ||
      m.args[arg[In]].rank() != rank || m.args[arg[Out]].rank() != rank) {
    error = std::string("the bundle (program=") + program +
            ") must have one rank-" + std::to_string(rank) +
            " input and one rank-" + std::to_string(rank) + " output";
    return false;
  }
  const rt::ArgSpec &in = m.args[arg[In]];
  if (!checkDtypeFlag(opt, in.dtype, "input dtype", "", error))
    return false;
  if (!opt.cuSeqlens.empty()) {
    error = std::string("program=") + program +
            " is a row map: it takes no --cu-seqlens (pack the sequences "
            "along T and use --batch 1)";
    return false;
  }
  const int64_t heads = l2norm ? opt.heads : opt.valueHeads;
  if (!checkStaticDim(in, 0, opt.batch, "--batch", "static batch size",
                      error) ||
      !checkStaticDim(in, 1, opt.seqLen, "--seq-len", "static token count",
                      error) ||
      !checkStaticDim(in, 2, heads, l2norm ? "--heads" : "--value-heads",
                      l2norm ? "H" : "HV", error))
    return false;
  takeFlagSizes();
  K = 1;
  if (l2norm) {
    if (!in.dims[3].isStatic()) {
      error = "the bundle's 'x' has no static K";
      return false;
    }
    K = in.dims[3].size;
  }
  allowNegEigval = m.key("allow_neg_eigval") &&
                   *m.key("allow_neg_eigval") == "1";
  if (!sizeAll(m, {"B", "T", "H", "HV", "K"}, error))
    return false;
  int64_t outSize = 1;
  for (int64_t d : argShapes[arg[Out]])
    outSize *= d;
  injectAt(arg[Out], outSize / 2);
  description = "B=" + std::to_string(B) + " T=" + std::to_string(T) +
                (l2norm ? " H=" + std::to_string(H) + " K=" + std::to_string(K)
                        : " HV=" + std::to_string(HV) +
                              (allowNegEigval ? " allow_neg_eigval" : "")) +
                " dtype=" + rt::dtypeName(in.dtype) +
                " seed=" + std::to_string(opt.seed);
  return true;
}

void PreprocessRunner::compareOutputs(const Tensors &args, Table &outputs) {
  const HostTensor &out = args[arg[Out]];
  OutputStats &st = outputs.emplace_back(scanOutput(
      l2norm ? "x_norm" : "beta", roundingThreshold(out.dtype()), out));
  if (!st.compared)
    return;
  std::vector<double> x = args[arg[In]].getAll();
  std::vector<double> expected =
      l2norm ? ref::l2normRows(x, K) : ref::betaSigmoid(x, allowNegEigval);
  for (int64_t i = 0; i < out.size(); ++i)
    if (std::isfinite(out.get(i)))
      st.add(out.get(i), expected[i]);
}

} // namespace

std::unique_ptr<ProgramRunner> makeL2NormRunner() {
  return std::make_unique<PreprocessRunner>(/*l2norm=*/true);
}

std::unique_ptr<ProgramRunner> makeBetaActivationRunner() {
  return std::make_unique<PreprocessRunner>(/*l2norm=*/false);
}

} // namespace kda::run
