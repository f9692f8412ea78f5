//===- InterSolve.cpp - kda-run for program=inter_solve -------------------===//
//
// Arguments q, k [B,T,H,K] (the I/O dtype), G [B,T,HV,K] f32, beta [B,T,HV],
// Aqk [B,T,HV,BT] (I/O dtype), Akkd [B,T,HV,16] f32, optional cu_seqlens;
// outputs Aqk_out and M [B,T,HV,BT] (I/O dtype), either may be absent.
//
// Inputs made as fla's tests make them: q, k ~ randn, L2-normalized per
// row; g = logsigmoid(randn) / gate_norm, set to -1000 with probability
// --mask-p, clamped to [-5, 0] with safe_gate; G = the chunk cumsum of g;
// beta = sigmoid(randn); Akkd = the reference diagonal Akk blocks (their
// inverses with safe_gate); Aqk = the reference Aqk with its off-diagonal
// blocks zeroed, so that the kernel must write them. Every input is rounded
// to its dtype, and the reference is computed from the rounded values.
// Entries the kernel must not read (above the diagonal of the Akkd blocks
// without safe_gate, above the diagonal blocks of Aqk) hold NaN, like the
// garbage of fla's torch.empty buffers.
//
// Checked: Aqk_out on and below the diagonal of every chunk, and every
// column of every row of M = (I + Akk)^-1 (zeros above the diagonal
// included), against the float64 reference (solveTril of the full Akk);
// and both on their off-diagonal blocks against a reference whose
// off-diagonal dot operands are rounded to tf32 like the kernel's
// (Tf32Model.h). The reference and the derived inputs are computed per
// (sequence, value head), in parallel, so that --check-heads N computes
// the reference of N pairs only.
//
//===----------------------------------------------------------------------===//

#include "Pairs.h"
#include "Parallel.h"
#include "ProgramRunner.h"
#include "RandomStream.h"
#include "Setup.h"
#include "StageInputs.h"
#include "Tf32Model.h"

#include "kda/Reference/Reference.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

namespace kda::run {

namespace {

/// The rms ratio accepted for an output in the I/O dtype `io` whose f32
/// computation alone is accurate to `computed`: the larger of the two.
///
/// Rounding the output to bf16 (8 significant bits) or f16 (11) gives rms
/// ratios of about 2^-9 / sqrt(3) = 1.1e-3 and 2^-12 / sqrt(3) = 1.4e-4
/// (measured 1.6e-3 / 1.8e-3 for bf16 and 2.1e-4 for f16 on Aqk and the
/// off-diagonal blocks of M); inputs are rounded too, but the reference is
/// computed from the rounded values, so they add nothing. The accepted
/// ratios are about 2.5x that: 4e-3 for bf16, 5e-4 for f16.
double threshold(rt::DType io, double computed) {
  double rounding = io == rt::DType::BF16  ? 4e-3
                    : io == rt::DType::F16 ? 5e-4
                                           : 0.0;
  return std::max(rounding, computed);
}

/// The arguments of a kda.inter_solve bundle, by manifest name.
enum Arg { Q, Kk, Gc, Beta, Aqk, Akkd, AqkOut, MOut, NumArgs };
constexpr const char *kArgNames[NumArgs] = {"q",   "k",    "G",       "beta",
                                            "Aqk", "Akkd", "Aqk_out", "M"};

/// The four comparisons, in the order of the table.
enum Row { RowAqk, RowM, RowAqkOff, RowMOff, NumRows };
using RowStats = std::array<OutputStats, NumRows>;

/// kda.inter_solve: fla's fused off-diagonal Aqk/Akk blocks and solve_tril.
class InterSolveRunner : public ProgramRunner {
public:
  bool configure(const Options &options, const rt::Manifest &manifest,
                 std::string &error) override;
  std::string describe() const override { return description; }
  const std::vector<std::vector<int64_t>> &shapes() const override {
    return argShapes;
  }
  void makeInputs(std::vector<HostTensor> &args) override;
  void injectError(std::vector<HostTensor> &args) override;
  void check(const std::vector<HostTensor> &args,
             std::vector<OutputStats> &outputs) override;

private:
  /// The reference problem of `len` rows of one sequence and value head.
  ref::Problem subProblem(int64_t len) const;
  /// The diagonal 16x16 blocks of Aqk and Akkd of pair `pair` (with NaN in
  /// the entries the kernel must not read).
  void makeDiagonalBlocks(std::vector<HostTensor> &args,
                          const HeadPair &pair) const;
  /// Counts the non-finite elements of pair `pair` at the compared
  /// positions, and compares them with the references when `compare`.
  void checkPair(const std::vector<HostTensor> &args, const HeadPair &pair,
                 bool compare, RowStats &rows) const;
  /// Whether the bundle has output `a`.
  bool has(Arg a) const { return arg[a] >= 0; }

  Options opt;
  int arg[NumArgs];
  int64_t B = 0, T = 0, H = 0, HV = 0, K = 0, BT = 64;
  float scale = 0;
  bool safeGate = false;
  std::string precision = "tf32";
  rt::DType io = rt::DType::F32;
  std::vector<Sequence> seqs;
  PairSelection pairs;
  std::vector<std::vector<int64_t>> argShapes;
  std::string description;
};

bool InterSolveRunner::configure(const Options &options, const rt::Manifest &m,
                                 std::string &error) {
  opt = options;
  // Roles, ranks and dtypes: every input, at least one output.
  static const std::vector<StageArg> kRules = {
      {"q", false, 4, "float"},
      {"k", false, 4, "q"},
      {"G", false, 4, "f32"},
      {"beta", false, 3, "float"},
      {"Aqk", false, 4, "q"},
      {"Akkd", false, 4, "f32"},
      {"Aqk_out", true, 4, "q"},
      {"M", true, 4, "q"}};
  std::vector<int> index;
  if (!bindArguments(m, "inter_solve", kRules, index, error))
    return false;
  std::copy(index.begin(), index.end(), arg);
  const rt::ArgSpec &q = m.args[arg[Q]];
  io = q.dtype;
  if (!opt.dtype.empty() && opt.dtype != rt::dtypeName(io)) {
    error = "--dtype " + opt.dtype +
            " does not match the bundle's input "
            "dtype " +
            rt::dtypeName(io) + " (argument 'q')";
    return false;
  }

  // Sizes: B and T from the flags, H, HV, K and BT from the bundle, which
  // the flags must match.
  if (!bindBatchAndHeads(opt, m, q, m.args[arg[Gc]], error))
    return false;
  B = opt.batch;
  T = opt.seqLen;
  H = opt.heads;
  HV = opt.valueHeads;
  if (q.dims[3].isStatic())
    K = q.dims[3].size;
  else if (!parseKeyInt(m.key("K"), K)) {
    error = "the bundle fixes no K (neither a static last dimension of 'q' "
            "nor a key K=...)";
    return false;
  }
  const rt::ArgSpec &aqk = m.args[arg[Aqk]];
  if (const std::string *chunk = m.key("chunk")) {
    if (!parseKeyInt(chunk, BT)) {
      error = "the bundle's key chunk=" + *chunk + " is not a number";
      return false;
    }
  } else if (aqk.dims[3].isStatic()) {
    BT = aqk.dims[3].size;
  } else {
    error = "the bundle fixes no chunk size (neither a static last dimension "
            "of 'Aqk' nor a key chunk=...)";
    return false;
  }
  if (BT != 32 && BT != 64) {
    error =
        "the bundle's chunk size " + std::to_string(BT) + " is not 32 or 64";
    return false;
  }
  const std::string *scaleKey = m.key("scale");
  char *end = nullptr;
  if (scaleKey)
    scale = std::strtof(scaleKey->c_str(), &end);
  if (!scaleKey || scaleKey->empty() || *end) {
    error = "the bundle has no key scale=<number>";
    return false;
  }
  if (const std::string *s = m.key("safe_gate")) {
    if (*s != "0" && *s != "1") {
      error = "the bundle's key safe_gate=" + *s + " is not 0 or 1";
      return false;
    }
    safeGate = *s == "1";
  }
  if (const std::string *p = m.key("precision")) {
    if (*p != "tf32" && *p != "tf32x3" && *p != "ieee") {
      error =
          "the bundle's key precision=" + *p + " is not tf32, tf32x3 or ieee";
      return false;
    }
    precision = *p;
  }
  if (!checkCuSeqlens(opt, m, B, T, error))
    return false;

  // Every argument's shape.
  if (!sizeArguments(m,
                     {{"B", B},
                      {"T", T},
                      {"H", H},
                      {"HV", HV},
                      {"K", K},
                      {"BT", BT},
                      {"BC", ref::kSubChunk}},
                     opt.cuSeqlens.size(), argShapes, error) ||
      !checkSizes(m, argShapes, opt.cpu, error))
    return false;
  const std::vector<int64_t> expected[NumArgs] = {
      {B, T, H, K},   {B, T, H, K},   {B, T, HV, K},
      {B, T, HV},     {B, T, HV, BT}, {B, T, HV, ref::kSubChunk},
      {B, T, HV, BT}, {B, T, HV, BT}};
  for (int a = 0; a < NumArgs; ++a)
    if (has(static_cast<Arg>(a)) && argShapes[arg[a]] != expected[a]) {
      error = std::string("the bundle's '") + kArgNames[a] + "' (" +
              m.args[arg[a]].dimsText +
              ") does not have the shape kda.inter_solve gives it";
      return false;
    }
  seqs = sequencesOf(B, T, opt.cuSeqlens);
  pairs = selectPairs(seqs, HV, opt.checkHeads, opt.seed);

  char number[32];
  std::snprintf(number, sizeof number, "%.9g", scale);
  description =
      "B=" + std::to_string(B) + " T=" + std::to_string(T) +
      " H=" + std::to_string(H) + " HV=" + std::to_string(HV) +
      " K=" + std::to_string(K) + " chunk=" + std::to_string(BT) +
      " scale=" + number + " safe_gate=" + (safeGate ? "1" : "0") +
      " precision=" + precision + " dtype=" + rt::dtypeName(io) +
      " beta=" + rt::dtypeName(m.args[arg[Beta]].dtype) +
      (opt.cuSeqlens.empty() ? "" : " cu_seqlens=" + opt.cuSeqlensText);
  description += inputOptionsText(opt);
  return true;
}

ref::Problem InterSolveRunner::subProblem(int64_t len) const {
  ref::Problem p;
  p.B = 1;
  p.T = len;
  p.H = p.HV = 1;
  p.K = K;
  p.V = 1;
  p.chunkSize = BT;
  p.scale = static_cast<double>(scale);
  return p;
}

void InterSolveRunner::makeDiagonalBlocks(std::vector<HostTensor> &args,
                                          const HeadPair &pair) const {
  const int64_t bc = ref::kSubChunk, nu = pair.head, hq = nu / (HV / H);
  const Sequence &s = seqs[pair.seq];
  const double nan = std::numeric_limits<double>::quiet_NaN();
  HostTensor &aqkIn = args[arg[Aqk]], &akkdIn = args[arg[Akkd]];
  // Chunks start at the sequence start and hold whole sub-chunks, so the
  // sub-chunks are the 16-row blocks from the sequence start: each is a
  // one-chunk problem of its own.
  for (int64_t s0 = 0; s0 < s.length(); s0 += bc) {
    const int64_t n = std::min(bc, s.length() - s0), row0 = s.begin + s0;
    ref::Problem p = subProblem(n);
    std::vector<double> q = gatherHead(args[arg[Q]], row0, n, hq, H, K);
    std::vector<double> k = gatherHead(args[arg[Kk]], row0, n, hq, H, K);
    std::vector<double> G = gatherHead(args[arg[Gc]], row0, n, nu, HV, K);
    std::vector<double> beta = gatherHead(args[arg[Beta]], row0, n, nu, HV, 1);
    std::vector<double> aqk = ref::computeAqk(p, q, k, G);
    std::vector<double> akkd = ref::computeAkkDiag(p, k, G, beta);
    if (safeGate)
      akkd = ref::invertDiagonalBlocks(p, akkd);
    const int64_t first = s0 % BT; // column of the block in its chunk
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = row0 + i, local = first + i;
      for (int64_t j = 0; j < BT; ++j) {
        double v = j > local    ? nan                     // unread: garbage
                   : j >= first ? aqk[i * BT + j - first] // diagonal block
                                : 0.0; // computed by the kernel
        aqkIn.set((row * HV + nu) * BT + j, v);
      }
      for (int64_t j = 0; j < bc; ++j)
        akkdIn.set((row * HV + nu) * bc + j,
                   !safeGate && j > i ? nan : akkd[i * bc + j]);
    }
  }
}

void InterSolveRunner::makeInputs(std::vector<HostTensor> &args) {
  // The generator's stream is that of fla's tests: q, k, g, the mask, beta;
  // each part is drawn in parallel pieces.
  HostTensor &q = args[arg[Q]], &k = args[arg[Kk]], &G = args[arg[Gc]],
             &beta = args[arg[Beta]];
  drawChunkStageInputs(opt, safeGate, BT, HV, K, seqs, pairs.all, q, k, G,
                       beta);

  parallelFor(pairs.all.size(),
              [&](size_t i) { makeDiagonalBlocks(args, pairs.all[i]); });
}

void InterSolveRunner::injectError(std::vector<HostTensor> &args) {
  if (pairs.checked.empty())
    return;
  // Column 0 of a row is on or below the diagonal: compared in both outputs.
  const HeadPair &p = pairs.all[pairs.checked.front()];
  const Sequence &s = seqs[p.seq];
  HostTensor &out = args[arg[has(AqkOut) ? AqkOut : MOut]];
  int64_t at = ((s.begin + s.length() / 2) * HV + p.head) * BT;
  out.set(at, out.get(at) + 1.0);
}

void InterSolveRunner::checkPair(const std::vector<HostTensor> &args,
                                 const HeadPair &pair, bool compare,
                                 RowStats &rows) const {
  const int64_t bc = ref::kSubChunk, nu = pair.head, hq = nu / (HV / H);
  const Sequence &s = seqs[pair.seq];
  const int64_t len = s.length();
  std::vector<double> aqkRef, mRef, aqkModel, mModel;
  if (compare) {
    ref::Problem p = subProblem(len);
    std::vector<double> q = gatherHead(args[arg[Q]], s.begin, len, hq, H, K);
    std::vector<double> k = gatherHead(args[arg[Kk]], s.begin, len, hq, H, K);
    std::vector<double> G = gatherHead(args[arg[Gc]], s.begin, len, nu, HV, K);
    std::vector<double> beta =
        gatherHead(args[arg[Beta]], s.begin, len, nu, HV, 1);
    aqkRef = ref::computeAqk(p, q, k, G);
    std::vector<double> akkRef = ref::computeAkk(p, k, G, beta);
    mRef = ref::solveTril(p, akkRef);
    // The same with the off-diagonal blocks as tf32 dots give them.
    aqkModel = aqkRef;
    std::vector<double> akkModel = std::move(akkRef);
    modelOffDiagonalBlocks(p, q, k, G, beta, scale, aqkModel, akkModel);
    mModel = ref::solveTril(p, akkModel);
  }
  const HostTensor *aqkOut = has(AqkOut) ? &args[arg[AqkOut]] : nullptr;
  const HostTensor *mOut = has(MOut) ? &args[arg[MOut]] : nullptr;
  auto take = [&](OutputStats &st, double out, const std::vector<double> &ref,
                  int64_t at) {
    ++st.total;
    if (!std::isfinite(out))
      ++st.nonfinite;
    else if (compare)
      st.add(out, ref[at]);
  };
  for (int64_t r = 0; r < len; ++r) {
    const int64_t i = r % BT; // row in its chunk
    for (int64_t j = 0; j < BT; ++j) {
      const int64_t at = r * BT + j, outAt = ((s.begin + r) * HV + nu) * BT + j;
      const bool offDiagonal = j / bc < i / bc;
      if (aqkOut && j <= i) {
        double o = aqkOut->get(outAt);
        take(rows[RowAqk], o, aqkRef, at);
        if (offDiagonal)
          take(rows[RowAqkOff], o, aqkModel, at);
      }
      if (mOut) {
        double o = mOut->get(outAt);
        take(rows[RowM], o, mRef, at);
        if (offDiagonal)
          take(rows[RowMOff], o, mModel, at);
      }
    }
  }
}

void InterSolveRunner::check(const std::vector<HostTensor> &args,
                             std::vector<OutputStats> &outputs) {
  // Accuracy of the f32 computation (f32 I/O; see threshold() for the
  // others), measured at B=2 T=300 H=2 HV=4 K=64 (rms ratios):
  //
  //                         ieee     tf32     tf32x3
  //   Aqk_out, exact ref    4.0e-5   4.0e-5   4.0e-5
  //   M, exact ref          3.3e-6   4.1e-6   3.3e-6
  //   Aqk_off*              1.3e-7   1.3e-7   1.3e-7
  //   M_off*                1.3e-7   2.4e-4   1.4e-7
  //
  // - Against the exact float64 reference, the error comes from the
  //   off-diagonal dots, which are tf32 at every `precision` (fla's default
  //   for fp32-operand dots): operands lose up to 2^-11 relative, 3.2e-4
  //   rms on the off-diagonal blocks alone, less on whole outputs, whose
  //   diagonal blocks are fp32-exact. Accepted: 1e-3.
  // - The starred rows compare the off-diagonal blocks with a reference
  //   whose off-diagonal dot operands are the kernel's f32 operands rounded
  //   to tf32 (modelOffDiagonalBlocks), so only fp32 accumulation (Aqk) and
  //   the merge (M) remain: fp32 sums give ~1e-7 (accepted: 1e-6 for Aqk);
  //   the merge at tf32 rounds the 16x16 operands like the off-diagonal
  //   dots (2.4e-4, accepted: 1e-3), at tf32x3 and ieee it is ~fp32
  //   (1.4e-7, accepted: 1e-5, which still tells them from tf32 by 20x).
  // - On the GPU the gate factors come from ex2.approx.f32 (2 ulp), not a
  //   correctly rounded exp2: an operand close to a tf32 rounding boundary
  //   then rounds the other way than the model's, a 2^-11 step on that
  //   element. Measured on an H200: Aqk_off* up to 5.3e-5 (f32 I/O, K=100,
  //   gates down to -1000); accepted there: 1e-4, still 3x below the
  //   unmodelled tf32 error that the row exists to exclude.
  const double exactRef = 1e-3, accumulation = opt.cpu ? 1e-6 : 1e-4;
  const double merge = precision == "tf32" ? 1e-3 : 1e-5;
  const char *names[NumRows] = {"Aqk_out", "M", "Aqk_off*", "M_off*"};
  const double thresholds[NumRows] = {
      threshold(io, exactRef), threshold(io, exactRef),
      threshold(io, accumulation), threshold(io, merge)};

  // Every pair is scanned for NaN/Inf; the checked ones are compared too.
  const bool compare = !opt.noCheck;
  if (compare && pairs.sampled())
    std::printf("checking %zu of %zu (sequence, head) pairs\n",
                pairs.checked.size(), pairs.all.size());
  std::vector<char> checked(pairs.all.size(), 0);
  for (size_t i : pairs.checked)
    checked[i] = 1;
  std::vector<RowStats> perPair(pairs.all.size());
  parallelFor(pairs.all.size(), [&](size_t i) {
    checkPair(args, pairs.all[i], compare && checked[i], perPair[i]);
  });
  RowStats rows;
  for (int r = 0; r < NumRows; ++r) {
    rows[r].name = names[r];
    rows[r].threshold = thresholds[r];
    rows[r].compared = compare;
  }
  for (const RowStats &pair : perPair)
    for (int r = 0; r < NumRows; ++r)
      rows[r].merge(pair[r]);

  const bool present[NumRows] = {has(AqkOut), has(MOut), has(AqkOut) && compare,
                                 has(MOut) && compare};
  for (int r = 0; r < NumRows; ++r)
    if (present[r])
      outputs.push_back(rows[r]);
  if (compare)
    std::printf("(*: off-diagonal blocks only, against the reference with "
                "the off-diagonal dot operands rounded to tf32 like the "
                "kernel's)\n");
}

} // namespace

std::unique_ptr<ProgramRunner> makeInterSolveRunner() {
  return std::make_unique<InterSolveRunner>();
}

} // namespace kda::run
