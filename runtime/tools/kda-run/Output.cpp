//===- Output.cpp - kda-run for program=output ----------------------------===//
//
// Arguments q [B,T,H,K] (the I/O dtype), G [B,T,HV,K] f32, Aqk [B,T,HV,BT]
// and h [B,NT,HV,K,V] ([B,NT,HV,V,K] with state_layout=vk) in q's dtype,
// v_new [B,T,HV,V], optional cu_seqlens; output o [B,T,HV,V] (v_new's
// dtype). NT is ceil(T/BT), or the total number of chunks with cu_seqlens.
//
// Inputs are those of the chunked forward on random q, k, v, g, beta drawn
// like fla's tests (StageInputs.h), rounded to the bundle's dtypes: Aqk
// (with the bundle's scale), h and v_new are the float64 reference's,
// rounded to their dtypes. Entries of Aqk the kernel must not read (above
// the diagonal, like the garbage of fla's torch.empty buffer) hold NaN. The
// reference is ref::chunkOutput of the stored (rounded) inputs; every
// element of o is scanned for NaN/Inf and compared, or, with
// --check-heads N, those of N random (sequence, head) pairs.
//
//===----------------------------------------------------------------------===//

#include "HostTensor.h"
#include "ProgramRunner.h"
#include "Pairs.h"
#include "StageInputs.h"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace kda::run {

namespace {

/// The arguments of a kda.output bundle.
enum Arg { Q, Gc, Aqk, Hh, VNew, O, NumArgs };

const std::vector<StageArg> kArgs = {
    {"q", false, 4, "float"}, {"G", false, 4, "f32"},
    {"Aqk", false, 4, "q"},   {"h", false, 5, "q"},
    {"v_new", false, 4, "float"}, {"o", true, 4, "v_new"}};

/// The rms ratio accepted for o in dtype `dtype`.
///
/// The kernel rounds q * 2^G to q's dtype before the inter-chunk dot (fla's
/// rounding point), which the float64 reference does not, and rounds o;
/// each rounding to bf16 (8 significant bits) gives an rms ratio of about
/// 2^-9 / sqrt(3) = 1.1e-3 (f16, 11 bits: 1.4e-4). Measured on the CPU
/// build, bf16, K = V = 100, T = 65 and 300, seeds 0-2: 1.65-1.67e-3;
/// f16, K = 64, V = 96, T = 200: 2.1e-4. Accepted: 4e-3 for bf16 (as for
/// inter_solve) and 5e-4 for f16, more than 2x the worst measured. With
/// f32 I/O the dots run at tf32 (operands rounded to 11 significant bits,
/// about 1.4e-4 rms per operand, fla's default fp32 tl.dot precision);
/// measured 2.9e-4 (varlen T=2000, K=60, V=128). Accepted: 1e-3.
double threshold(rt::DType dtype) {
  return dtype == rt::DType::BF16  ? 4e-3
         : dtype == rt::DType::F16 ? 5e-4
                                   : 1e-3;
}

/// kda.output: fla's chunk_gla_fwd_kernel_o.
class OutputRunner : public ProgramRunner {
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
  HostTensor &get(std::vector<HostTensor> &args, Arg a) const {
    return args[s.index[a]];
  }
  const HostTensor &get(const std::vector<HostTensor> &args, Arg a) const {
    return args[s.index[a]];
  }

  Options opt;
  StageSetup s;
  /// The (sequence, head) pairs compared (--check-heads).
  RowHeadSelection rows;
  ref::Problem problem;
  std::string description;
};

bool OutputRunner::configure(const Options &options, const rt::Manifest &m,
                             std::string &error) {
  opt = options;
  if (!configureStage(opt, m, "output", kArgs, "q", "v_new", s, error))
    return false;
  const std::string *scaleKey = m.key("scale");
  char *end = nullptr;
  double scale = 0;
  if (scaleKey)
    scale = std::strtod(scaleKey->c_str(), &end);
  if (!scaleKey || scaleKey->empty() || *end) {
    error = "the bundle has no key scale=<number>";
    return false;
  }
  const std::string *layoutKey = m.key("state_layout");
  if (!layoutKey || (*layoutKey != "kv" && *layoutKey != "vk")) {
    error = "the bundle has no key state_layout=kv or state_layout=vk";
    return false;
  }
  const bool vFirst = *layoutKey == "vk";
  const std::vector<int64_t> expected[NumArgs] = {
      {s.B, s.T, s.H, s.K},
      {s.B, s.T, s.HV, s.K},
      {s.B, s.T, s.HV, s.BT},
      vFirst ? std::vector<int64_t>{s.B, s.NT, s.HV, s.V, s.K}
             : std::vector<int64_t>{s.B, s.NT, s.HV, s.K, s.V},
      {s.B, s.T, s.HV, s.V},
      {s.B, s.T, s.HV, s.V}};
  for (int a = 0; a < NumArgs; ++a)
    if (s.shapes[s.index[a]] != expected[a]) {
      error = std::string("the bundle's '") + kArgs[a].name + "' (" +
              m.args[s.index[a]].dimsText +
              ") does not have the shape kda.output gives it";
      return false;
    }
  problem = stageProblem(s, opt, scale,
                         vFirst ? ref::StateLayout::VK : ref::StateLayout::KV);
  rows = RowHeadSelection(s.B, s.T, opt.cuSeqlens, s.HV, opt.checkHeads,
                          opt.seed);
  description =
      "B=" + std::to_string(s.B) + " T=" + std::to_string(s.T) +
      " H=" + std::to_string(s.H) + " HV=" + std::to_string(s.HV) +
      " K=" + std::to_string(s.K) + " V=" + std::to_string(s.V) +
      " NT=" + std::to_string(s.NT) + " chunk=" + std::to_string(s.BT) +
      " scale=" + *scaleKey + " state_layout=" + *layoutKey +
      " dtype=" + rt::dtypeName(m.args[s.index[Q]].dtype) +
      " v_new=" + rt::dtypeName(m.args[s.index[VNew]].dtype) +
      (opt.cuSeqlens.empty() ? "" : " cu_seqlens=" + opt.cuSeqlensText) +
      " seed=" + std::to_string(opt.seed);
  return true;
}

void OutputRunner::makeInputs(std::vector<HostTensor> &args) {
  StageInputs in = makeStageInputs(problem, opt, get(args, Q).dtype(),
                                   get(args, VNew).dtype(), rt::DType::F32);
  auto fill = [&](Arg a, const std::vector<double> &x) {
    HostTensor &t = get(args, a);
    for (int64_t i = 0; i < t.size(); ++i)
      t.set(i, x[i]);
  };
  fill(Q, in.q);
  fill(Gc, in.G);
  fill(Hh, in.forward.h);
  fill(VNew, in.forward.vNew);
  // Aqk, NaN above the diagonal (never written by fla's intra kernels).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  HostTensor &aqk = get(args, Aqk);
  for (const ref::Chunk &c : problem.chunks())
    for (int64_t i = c.begin; i < c.end; ++i)
      for (int64_t nu = 0; nu < s.HV; ++nu)
        for (int64_t j = 0; j < s.BT; ++j) {
          const int64_t at = (i * s.HV + nu) * s.BT + j;
          aqk.set(at, j <= i - c.begin ? in.forward.Aqk[at] : nan);
        }
}

void OutputRunner::injectError(std::vector<HostTensor> &args) {
  // An element the check compares.
  const int64_t rowHead = rows.firstCheckedRowHead();
  if (rowHead < 0)
    return;
  HostTensor &o = get(args, O);
  o.set(rowHead * s.V, o.get(rowHead * s.V) + 1.0);
}

void OutputRunner::check(const std::vector<HostTensor> &args,
                         std::vector<OutputStats> &outputs) {
  auto all = [&](Arg a) {
    const HostTensor &t = get(args, a);
    std::vector<double> x(static_cast<size_t>(t.size()));
    for (int64_t i = 0; i < t.size(); ++i)
      x[i] = t.get(i);
    return x;
  };
  const bool compare = !opt.noCheck;
  std::vector<double> ref;
  if (compare)
    ref = ref::chunkOutput(problem, all(Q), all(Gc), all(Aqk), all(Hh),
                           all(VNew));
  // Every element is scanned for NaN/Inf; those of the checked (sequence,
  // head) pairs are compared too.
  if (compare)
    rows.announce();
  const HostTensor &o = get(args, O);
  OutputStats st;
  st.name = "o";
  st.threshold = threshold(o.dtype());
  st.compared = compare;
  for (int64_t i = 0; i < o.size(); ++i) {
    ++st.total;
    double x = o.get(i);
    if (!std::isfinite(x))
      ++st.nonfinite;
    else if (compare && rows.compared[i / s.V])
      st.add(x, ref[i]);
  }
  outputs.push_back(st);
}

} // namespace

std::unique_ptr<ProgramRunner> makeOutputRunner() {
  return std::make_unique<OutputRunner>();
}

} // namespace kda::run
