//===- WYRecompute.cpp - kda-run for program=wy_recompute -----------------===//
//
// Arguments k [B,T,H,K] (the I/O dtype), v [B,T,HV,V], G [B,T,HV,K] f32,
// beta [B,T,HV], M [B,T,HV,BT] (k's dtype), optional cu_seqlens; outputs
// w, kg [B,T,HV,K] (k's dtype) and u [B,T,HV,V] (v's dtype), any of them
// may be absent.
//
// Inputs are those of the chunked forward on random q, k, v, g, beta drawn
// like fla's tests (StageInputs.h), rounded to the bundle's dtypes; M is the
// reference's (I + Akk)^-1 of those inputs rounded to k's dtype. Entries of
// M the kernel must ignore hold NaN: those above the diagonal and those in
// columns past the sequence end of a tail chunk. The reference is
// ref::computeW / computeU / computeKg of the stored (rounded) inputs;
// every element of every output is scanned for NaN/Inf and compared, or,
// with --check-heads N, those of N random (sequence, head) pairs.
//
//===----------------------------------------------------------------------===//

#include "HostTensor.h"
#include "ProgramRunner.h"
#include "Pairs.h"
#include "StageInputs.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kda::run {

namespace {

/// The arguments of a kda.wy_recompute bundle.
enum Arg { Kk, Vv, Gc, Beta, Mm, W, U, Kg, NumArgs };

const std::vector<StageArg> kArgs = {
    {"k", false, 4, "float"}, {"v", false, 4, "float"},
    {"G", false, 4, "f32"},   {"beta", false, 3, "float"},
    {"M", false, 4, "k"},     {"w", true, 4, "k"},
    {"u", true, 4, "v"},      {"kg", true, 4, "k"}};

/// The rms ratio accepted for an output of dtype `dtype`.
///
/// The kernel rounds beta * k * 2^G and beta * v to the I/O dtype before
/// the dots (fla's rounding points), which the float64 reference does not,
/// and rounds its outputs; each rounding to bf16 (8 significant bits) gives
/// an rms ratio of about 2^-9 / sqrt(3) = 1.1e-3 (f16, 11 bits: 1.4e-4),
/// and the dots add some cancellation (M has negative entries). Measured on
/// the CPU build, bf16, K = V = 100, T = 65 and 300, seeds 0-3: w 1.8-1.9e-3,
/// u 2.3e-3, kg 0.7-0.9e-3 (rounding of the output only); f16, K = 64,
/// V = 96, T = 200: w 2.4e-4, u 2.9e-4, kg 1.0e-4. Accepted: 4e-3 for bf16
/// (as for inter_solve) and 5e-4 for f16, about 1.7x the worst measured.
/// With f32 I/O the dots run at tf32 (operands rounded to 11 significant
/// bits, about 1.4e-4 rms per operand, as fla's default fp32 tl.dot);
/// measured 2.0-2.1e-4 on w and u (varlen T=2000 and 300, K=60, V=128)
/// and 1-2e-8 on kg, which has no dot. Accepted: 1e-3 with a dot, 1e-6
/// for kg.
double threshold(rt::DType dtype, bool hasDot) {
  if (dtype == rt::DType::BF16)
    return 4e-3;
  if (dtype == rt::DType::F16)
    return 5e-4;
  return hasDot ? 1e-3 : 1e-6;
}

/// kda.wy_recompute: fla's recompute_w_u_fwd_kda_kernel.
class WYRecomputeRunner : public ProgramRunner {
public:
  bool configure(const Options &options, const rt::Manifest &manifest,
                 std::string &error) override;
  std::string describe() const override { return description; }
  const std::vector<std::vector<int64_t>> &shapes() const override {
    return s.shapes;
  }
  void makeInputs(std::vector<HostTensor> &args) override;
  void injectError(std::vector<HostTensor> &args) override;
  void check(const std::vector<HostTensor> &args,
             std::vector<OutputStats> &outputs) override;

private:
  bool has(Arg a) const { return s.index[a] >= 0; }
  const HostTensor &get(const std::vector<HostTensor> &args, Arg a) const {
    return args[s.index[a]];
  }
  HostTensor &get(std::vector<HostTensor> &args, Arg a) const {
    return args[s.index[a]];
  }

  Options opt;
  StageSetup s;
  /// The (sequence, head) pairs compared (--check-heads).
  RowHeadSelection rows;
  ref::Problem problem;
  std::string description;
};

bool WYRecomputeRunner::configure(const Options &options,
                                  const rt::Manifest &m, std::string &error) {
  opt = options;
  if (!configureStage(opt, m, "wy_recompute", kArgs, "k", "v", s, error))
    return false;
  const std::vector<int64_t> expected[NumArgs] = {
      {s.B, s.T, s.H, s.K},  {s.B, s.T, s.HV, s.V}, {s.B, s.T, s.HV, s.K},
      {s.B, s.T, s.HV},      {s.B, s.T, s.HV, s.BT}, {s.B, s.T, s.HV, s.K},
      {s.B, s.T, s.HV, s.V}, {s.B, s.T, s.HV, s.K}};
  for (int a = 0; a < NumArgs; ++a)
    if (has(static_cast<Arg>(a)) && s.shapes[s.index[a]] != expected[a]) {
      error = std::string("the bundle's '") + kArgs[a].name + "' (" +
              m.args[s.index[a]].dimsText +
              ") does not have the shape kda.wy_recompute gives it";
      return false;
    }
  problem = stageProblem(s, opt, 1.0, ref::StateLayout::KV);
  rows = RowHeadSelection(s.B, s.T, opt.cuSeqlens, s.HV, opt.checkHeads,
                          opt.seed);
  description =
      "B=" + std::to_string(s.B) + " T=" + std::to_string(s.T) +
      " H=" + std::to_string(s.H) + " HV=" + std::to_string(s.HV) +
      " K=" + std::to_string(s.K) + " V=" + std::to_string(s.V) +
      " chunk=" + std::to_string(s.BT) +
      " dtype=" + rt::dtypeName(m.args[s.index[Kk]].dtype) +
      " v=" + rt::dtypeName(m.args[s.index[Vv]].dtype) +
      (opt.cuSeqlens.empty() ? "" : " cu_seqlens=" + opt.cuSeqlensText) +
      " seed=" + std::to_string(opt.seed);
  return true;
}

void WYRecomputeRunner::makeInputs(std::vector<HostTensor> &args) {
  StageInputs in =
      makeStageInputs(problem, opt, get(args, Kk).dtype(), get(args, Vv).dtype(),
                      get(args, Beta).dtype());
  auto fill = [&](Arg a, const std::vector<double> &x) {
    HostTensor &t = get(args, a);
    for (int64_t i = 0; i < t.size(); ++i)
      t.set(i, x[i]);
  };
  fill(Kk, in.k);
  fill(Vv, in.v);
  fill(Gc, in.G);
  fill(Beta, in.beta);
  // M, NaN where the kernel must not read: above the diagonal and past the
  // sequence end of the chunk.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  HostTensor &mIn = get(args, Mm);
  for (const ref::Chunk &c : problem.chunks())
    for (int64_t i = c.begin; i < c.end; ++i)
      for (int64_t nu = 0; nu < s.HV; ++nu)
        for (int64_t j = 0; j < s.BT; ++j) {
          const int64_t at = (i * s.HV + nu) * s.BT + j;
          const bool read = j <= i - c.begin && j < c.size();
          mIn.set(at, read ? in.forward.M[at] : nan);
        }
}

void WYRecomputeRunner::injectError(std::vector<HostTensor> &args) {
  // An element the check compares.
  const int64_t rowHead = rows.firstCheckedRowHead();
  if (rowHead < 0)
    return;
  for (Arg a : {W, U, Kg})
    if (has(a)) {
      HostTensor &t = get(args, a);
      const int64_t at = rowHead * (a == U ? s.V : s.K);
      t.set(at, t.get(at) + 1.0);
      return;
    }
}

void WYRecomputeRunner::check(const std::vector<HostTensor> &args,
                              std::vector<OutputStats> &outputs) {
  auto all = [&](Arg a) {
    const HostTensor &t = get(args, a);
    std::vector<double> x(static_cast<size_t>(t.size()));
    for (int64_t i = 0; i < t.size(); ++i)
      x[i] = t.get(i);
    return x;
  };
  const bool compare = !opt.noCheck;
  std::vector<double> k = all(Kk), G = all(Gc), beta = all(Beta);
  std::vector<double> M = all(Mm);
  std::vector<double> refs[3];
  if (compare) {
    if (has(W))
      refs[0] = ref::computeW(problem, k, G, beta, M);
    if (has(U))
      refs[1] = ref::computeU(problem, all(Vv), beta, M);
    if (has(Kg))
      refs[2] = ref::computeKg(problem, k, G);
  }
  // Every element is scanned for NaN/Inf; those of the checked (sequence,
  // head) pairs are compared too.
  if (compare)
    rows.announce();
  const Arg outs[3] = {W, U, Kg};
  for (int o = 0; o < 3; ++o) {
    if (!has(outs[o]))
      continue;
    const HostTensor &t = get(args, outs[o]);
    const int64_t width = outs[o] == U ? s.V : s.K;
    OutputStats st;
    st.name = kArgs[outs[o]].name;
    st.threshold = threshold(t.dtype(), outs[o] != Kg);
    st.compared = compare;
    for (int64_t i = 0; i < t.size(); ++i) {
      ++st.total;
      double x = t.get(i);
      if (!std::isfinite(x))
        ++st.nonfinite;
      else if (compare && rows.compared[i / width])
        st.add(x, refs[o][i]);
    }
    outputs.push_back(st);
  }
}

} // namespace

std::unique_ptr<ProgramRunner> makeWYRecomputeRunner() {
  return std::make_unique<WYRecomputeRunner>();
}

} // namespace kda::run
