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

#include "ProgramRunner.h"
#include "RandomStream.h"
#include "Setup.h"

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

/// kda.l2norm or kda.beta_activation.
class PreprocessRunner : public ProgramRunner {
public:
  explicit PreprocessRunner(bool l2norm) : l2norm(l2norm) {}
  bool configure(const Options &options, const rt::Manifest &manifest,
                 std::string &error) override;
  std::string describe() const override { return description; }
  const std::vector<std::vector<int64_t>> &shapes() const override {
    return argShapes;
  }
  void makeInputs(std::vector<HostTensor> &args) override {
    HostTensor &x = args[inArg];
    RandomStream(opt.seed).normals(x.size()).draw(
        [&](int64_t i, double v) { x.set(i, v); });
  }
  void injectError(std::vector<HostTensor> &args) override {
    HostTensor &out = args[outArg];
    out.set(out.size() / 2, out.get(out.size() / 2) + 1.0);
  }
  void check(const std::vector<HostTensor> &args,
             std::vector<OutputStats> &outputs) override;

private:
  bool l2norm;
  bool allowNegEigval = false;
  Options opt;
  int inArg = -1, outArg = -1;
  int64_t rowLength = 0;
  std::vector<std::vector<int64_t>> argShapes;
  std::string description;
};

bool PreprocessRunner::configure(const Options &options,
                                 const rt::Manifest &m, std::string &error) {
  opt = options;
  const char *program = l2norm ? "l2norm" : "beta_activation";
  const int rank = l2norm ? 4 : 3;
  for (size_t i = 0; i < m.args.size(); ++i) {
    if (m.args[i].role == rt::ArgRole::Input && inArg < 0)
      inArg = static_cast<int>(i);
    if (m.args[i].role == rt::ArgRole::Output && outArg < 0)
      outArg = static_cast<int>(i);
  }
  if (inArg < 0 || outArg < 0 || m.args.size() != 2 ||
      m.args[inArg].rank() != rank || m.args[outArg].rank() != rank) {
    error = std::string("the bundle (program=") + program +
            ") must have one rank-" + std::to_string(rank) +
            " input and one rank-" + std::to_string(rank) + " output";
    return false;
  }
  const rt::ArgSpec &in = m.args[inArg];
  if (!opt.dtype.empty() && opt.dtype != rt::dtypeName(in.dtype)) {
    error = "--dtype " + opt.dtype + " does not match the bundle's input "
            "dtype " + rt::dtypeName(in.dtype);
    return false;
  }
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
  int64_t K = 1;
  if (l2norm) {
    if (!in.dims[3].isStatic()) {
      error = "the bundle's 'x' has no static K";
      return false;
    }
    K = in.dims[3].size;
  }
  rowLength = K;
  allowNegEigval = m.key("allow_neg_eigval") &&
                   *m.key("allow_neg_eigval") == "1";
  std::map<std::string, int64_t> symbols = {
      {"B", opt.batch}, {"T", opt.seqLen}, {"H", opt.heads},
      {"HV", opt.valueHeads}, {"K", K}};
  if (!sizeArguments(m, symbols, 0, argShapes, error) ||
      !checkSizes(m, argShapes, opt.cpu, error))
    return false;
  description = "B=" + std::to_string(opt.batch) +
                " T=" + std::to_string(opt.seqLen) +
                (l2norm ? " H=" + std::to_string(opt.heads) +
                              " K=" + std::to_string(K)
                        : " HV=" + std::to_string(opt.valueHeads) +
                              (allowNegEigval ? " allow_neg_eigval" : "")) +
                " dtype=" + rt::dtypeName(in.dtype) +
                " seed=" + std::to_string(opt.seed);
  return true;
}

void PreprocessRunner::check(const std::vector<HostTensor> &args,
                             std::vector<OutputStats> &outputs) {
  const HostTensor &in = args[inArg];
  const HostTensor &out = args[outArg];
  OutputStats st;
  st.name = l2norm ? "x_norm" : "beta";
  st.threshold = roundingThreshold(out.dtype());
  st.total = out.size();
  for (int64_t i = 0; i < out.size(); ++i)
    if (!std::isfinite(out.get(i)))
      ++st.nonfinite;
  if (opt.noCheck) {
    st.compared = false;
    outputs.push_back(st);
    return;
  }
  std::vector<double> x(in.size());
  for (int64_t i = 0; i < in.size(); ++i)
    x[i] = in.get(i);
  std::vector<double> expected = l2norm ? ref::l2normRows(x, rowLength)
                                        : ref::betaSigmoid(x, allowNegEigval);
  for (int64_t i = 0; i < out.size(); ++i)
    if (std::isfinite(out.get(i)))
      st.add(out.get(i), expected[i]);
  outputs.push_back(st);
}

} // namespace

std::unique_ptr<ProgramRunner> makeL2NormRunner() {
  return std::make_unique<PreprocessRunner>(/*l2norm=*/true);
}

std::unique_ptr<ProgramRunner> makeBetaActivationRunner() {
  return std::make_unique<PreprocessRunner>(/*l2norm=*/false);
}

} // namespace kda::run
