//===- ChunkFwd.cpp - kda-run for program=chunk_fwd (the whole forward) ---===//
//
// Inputs q, k [B,T,H,K], v [B,T,HV,V], g [B,T,HV,K], beta [B,T,HV], optional
// a_log [HV] and dt_bias [HV,K] or [HV*K], optional initial_state [N,HV,K,V]
// (V,K with state_layout=vk), optional cu_seqlens; outputs o [B,T,HV,V] and
// optional final_state. Inputs are made like fla's test_chunk:
//  - q, k ~ U[0,1), L2-normalized here unless the bundle normalizes them
//    (key l2norm=1); v ~ U[0,1);
//  - a precomputed gate logsigmoid(randn) / gate_norm (set to -1000 with
//    probability mask_p; clamped to [-5, 0] with safe_gate), or, for an
//    in-kernel gate, g, A_log, dt_bias ~ randn;
//  - beta = sigmoid(randn), or the logits randn with beta_sigmoid=1;
//  - initial_state ~ randn.
// The reference is the float64 per-token recurrence (fla's naive recurrent
// KDA) on the preprocessed inputs as stored, per (sequence, value head) so
// that --check-heads can pick a few. Threshold: fla's own for o and the
// final state, an RMS ratio of 0.005.
//
//===----------------------------------------------------------------------===//

#include "Gates.h"
#include "RandomStream.h"
#include "Setup.h"
#include "StageRunner.h"

#include "kda/Reference/Reference.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace kda::run {

namespace {

/// fla's threshold for o and ht in test_chunk and test_chunk_varlen.
constexpr double kForwardThreshold = 0.005;

/// True when the bundle's key `name` is "1".
bool keyFlag(const rt::Manifest &m, const char *name) {
  const std::string *value = m.key(name);
  return value && *value == "1";
}

/// The arguments of a kda.chunk_fwd bundle, by manifest name.
enum Arg { Q, Kk, Vv, G, Beta, ALog, DtBias, H0, O, Ht };

/// kda.chunk_fwd: o and the final state of the whole forward.
class ChunkFwdRunner : public StageRunner {
  bool setUp(const rt::Manifest &m, std::string &error) override;
  void makeInputs(Tensors &args) override;
  void compareOutputs(const Tensors &args, Table &outputs) override;

  /// Accumulates the outputs of the compared pairs against the float64
  /// per-token recurrence (o into `oStats`, the final state into
  /// `htStats`).
  void compareWithRecurrence(const Tensors &args, OutputStats &oStats,
                             OutputStats &htStats) const;

  double scale = 0;
  BundleGate gate;
  bool safeGate = false, l2norm = false, betaSigmoid = false,
       allowNegEigval = false, vk = false;
};

bool ChunkFwdRunner::setUp(const rt::Manifest &m, std::string &error) {
  findArguments(m, {"q", "k", "v", "g", "beta", "a_log", "dt_bias",
                    "initial_state", "o", "final_state"});
  if (!requireArguments("chunk_fwd", {Q, Kk, Vv, G, Beta, O}, error))
    return false;
  const rt::ArgSpec &q = m.args[arg[Q]];
  if (!checkDtypeFlag(opt, q.dtype, "input dtype", "q", error) ||
      !bindBatchAndHeads(opt, m, q, m.args[arg[Vv]], error))
    return false;
  takeFlagSizes();
  if (!parseKeyInt(m.key("K"), K) || !parseKeyInt(m.key("V"), V) ||
      !parseKeyInt(m.key("chunk"), BT)) {
    error = "the bundle's key lacks K, V or chunk";
    return false;
  }
  const std::string *scaleText = m.key("scale");
  char *end = nullptr;
  scale = scaleText ? std::strtod(scaleText->c_str(), &end) : 0.0;
  if (!scaleText || *end || !(scale > 0)) {
    error = "the bundle's key has no valid scale";
    return false;
  }
  if (!gate.readMode(m)) {
    error = "the bundle's key gate=" + gate.name + " is not known";
    return false;
  }
  if (const std::string *lb = m.key("lower_bound"))
    gate.lowerBound = std::strtod(lb->c_str(), nullptr);
  gate.aLogArg = arg[ALog];
  gate.dtBiasArg = arg[DtBias];
  safeGate = keyFlag(m, "safe_gate");
  l2norm = keyFlag(m, "l2norm");
  betaSigmoid = keyFlag(m, "beta_sigmoid");
  allowNegEigval = keyFlag(m, "allow_neg_eigval");
  vk = m.key("state_layout") && *m.key("state_layout") == "vk";
  if (!gate.checkFlags(opt, error) || !checkCuSeqlens(opt, m, B, T, error))
    return false;
  countChunks();
  if (!sizeAll(m, {"B", "T", "H", "HV", "K", "V", "N", "NT"}, error))
    return false;
  pickPairs(HV);
  injectAtMiddleRow(arg[O], V);

  char number[32];
  std::snprintf(number, sizeof number, "%g", scale);
  description =
      sizesText() + " V=" + std::to_string(V) + " chunk=" + std::to_string(BT) +
      " scale=" + number + " gate=" + gate.name +
      (safeGate ? " safe_gate" : "") + (l2norm ? " l2norm" : "") +
      (betaSigmoid ? " beta_sigmoid" : "") +
      (allowNegEigval ? " allow_neg_eigval" : "") +
      (vk ? " state_layout=vk" : "") + (has(H0) ? " initial_state" : "") +
      (has(Ht) ? " final_state" : "") + " dtype=" + rt::dtypeName(q.dtype) +
      cuSeqlensText() + inputOptionsText(opt);
  return true;
}

void ChunkFwdRunner::makeInputs(Tensors &args) {
  RandomStream stream(opt.seed);
  // q and k ~ U[0,1), each row normalized unless the bundle does it.
  for (int a : {Q, Kk}) {
    HostTensor &x = args[arg[a]];
    std::vector<double> values(x.size());
    stream.uniforms(x.size()).draw(
        [&](int64_t i, double u) { values[i] = u; });
    if (!l2norm)
      values = ref::l2normRows(values, K);
    x.setAll(values);
  }
  stream.uniforms(args[arg[Vv]].size()).drawInto(args[arg[Vv]]);
  gate.draw(opt, stream, args[arg[G]], args,
            safeGate ? -5.0 : -std::numeric_limits<double>::infinity());
  HostTensor &beta = args[arg[Beta]];
  stream.normals(beta.size()).draw([&](int64_t i, double x) {
    beta.set(i, betaSigmoid ? x : ref::sigmoid(x));
  });
  if (has(H0))
    stream.normals(args[arg[H0]].size()).drawInto(args[arg[H0]]);
}

void ChunkFwdRunner::compareOutputs(const Tensors &args, Table &outputs) {
  OutputStats oStats = scanOutput("o", kForwardThreshold, args[arg[O]]);
  OutputStats htStats;
  if (has(Ht))
    htStats = scanOutput("final_state", kForwardThreshold, args[arg[Ht]]);
  if (oStats.compared)
    compareWithRecurrence(args, oStats, htStats);
  outputs.push_back(oStats);
  if (has(Ht))
    outputs.push_back(htStats);
}

void ChunkFwdRunner::compareWithRecurrence(const Tensors &args,
                                           OutputStats &oStats,
                                           OutputStats &htStats) const {
  const HostTensor &o = args[arg[O]];
  const int64_t group = HV / H;
  std::vector<double> aLog, dtBias;
  auto stateIndex = [&](int64_t kk, int64_t vv) {
    return vk ? vv * K + kk : kk * V + vv;
  };
  std::vector<bool> stateChecked(static_cast<size_t>(N * HV), false);
  for (size_t index : pairs.checked) {
    const HeadPair &pair = pairs.all[index];
    const int64_t nu = pair.head, head = nu / group;
    const Sequence &s = seqs[pair.seq];
    const int64_t len = s.length();
    ref::Problem p = pairProblem(len, K, V, BT);
    p.scale = scale;
    std::vector<double> q = gatherHead(args[arg[Q]], s.begin, len, head, H, K);
    std::vector<double> k = gatherHead(args[arg[Kk]], s.begin, len, head, H, K);
    std::vector<double> v = gatherHead(args[arg[Vv]], s.begin, len, nu, HV, V);
    std::vector<double> g = gatherHead(args[arg[G]], s.begin, len, nu, HV, K);
    std::vector<double> beta =
        gatherHead(args[arg[Beta]], s.begin, len, nu, HV, 1);
    if (l2norm) {
      q = ref::l2normRows(q, K);
      k = ref::l2normRows(k, K);
    }
    if (betaSigmoid)
      beta = ref::betaSigmoid(beta, allowNegEigval);
    ref::GateOptions go = gate.headOptions(args, nu, K, aLog, dtBias);
    std::vector<double> gamma = ref::recurrenceGate(p, g, go);
    std::vector<double> h0;
    const int64_t seqIndex = static_cast<int64_t>(pair.seq);
    if (has(H0)) {
      h0.resize(K * V);
      for (int64_t kk = 0; kk < K; ++kk)
        for (int64_t vv = 0; vv < V; ++vv)
          h0[kk * V + vv] = args[arg[H0]].get((seqIndex * HV + nu) * K * V +
                                              stateIndex(kk, vv));
    }
    ref::ForwardResult r =
        ref::recurrentForward(p, q, k, v, gamma, beta, has(H0) ? &h0 : nullptr);
    for (int64_t t = 0; t < len; ++t)
      for (int64_t d = 0; d < V; ++d) {
        double out = o.get(((s.begin + t) * HV + nu) * V + d);
        if (std::isfinite(out))
          oStats.add(out, r.o[t * V + d]);
      }
    if (has(Ht)) {
      stateChecked[seqIndex * HV + nu] = true;
      for (int64_t kk = 0; kk < K; ++kk)
        for (int64_t vv = 0; vv < V; ++vv) {
          double out = args[arg[Ht]].get((seqIndex * HV + nu) * K * V +
                                         stateIndex(kk, vv));
          if (std::isfinite(out))
            htStats.add(out, r.finalState[kk * V + vv]);
        }
    }
  }
  // Empty sequences have no (sequence, head) pair: their final state is the
  // initial state (or 0), checked here when all pairs are checked.
  if (has(Ht) && !pairs.sampled())
    for (int64_t n = 0; n < N; ++n)
      for (int64_t nu = 0; nu < HV; ++nu) {
        if (stateChecked[n * HV + nu])
          continue;
        for (int64_t i = 0; i < K * V; ++i) {
          int64_t at = (n * HV + nu) * K * V + i;
          double expected = has(H0) ? args[arg[H0]].get(at) : 0.0;
          double out = args[arg[Ht]].get(at);
          if (std::isfinite(out))
            htStats.add(out, expected);
        }
      }
}

} // namespace

std::unique_ptr<ProgramRunner> makeChunkFwdRunner() {
  return std::make_unique<ChunkFwdRunner>();
}

} // namespace kda::run
