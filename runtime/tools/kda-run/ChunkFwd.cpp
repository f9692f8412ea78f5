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

#include "Pairs.h"
#include "ProgramRunner.h"
#include "RandomStream.h"
#include "Setup.h"

#include "kda/Reference/Reference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kda::run {

namespace {

/// fla's threshold for o and ht in test_chunk and test_chunk_varlen.
constexpr double kForwardThreshold = 0.005;

/// True when the bundle's key `name` is "1".
bool keyFlag(const rt::Manifest &m, const char *name) {
  const std::string *value = m.key(name);
  return value && *value == "1";
}

/// kda.chunk_fwd: o and the final state of the whole forward.
class ChunkFwdRunner : public ProgramRunner {
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
  /// The gate options of the bundle, pointing into `aLog` / `dtBias`.
  ref::GateOptions gateOptions(const std::vector<HostTensor> &args,
                               int64_t nu, std::vector<double> &aLog,
                               std::vector<double> &dtBias) const;

  Options opt;
  int qArg = -1, kArg = -1, vArg = -1, gArg = -1, betaArg = -1;
  int aLogArg = -1, dtBiasArg = -1, h0Arg = -1, oArg = -1, htArg = -1;
  int64_t B = 0, T = 0, H = 0, HV = 0, K = 0, V = 0, N = 0, chunk = 64;
  double scale = 0;
  ref::GateMode mode = ref::GateMode::Precomputed;
  double lowerBound = -5.0;
  bool safeGate = false, l2norm = false, betaSigmoid = false,
       allowNegEigval = false, vk = false;
  std::vector<Sequence> seqs;
  PairSelection pairs;
  std::vector<std::vector<int64_t>> argShapes;
  std::string description;
};

bool ChunkFwdRunner::configure(const Options &options, const rt::Manifest &m,
                               std::string &error) {
  opt = options;
  qArg = m.argIndex("q");
  kArg = m.argIndex("k");
  vArg = m.argIndex("v");
  gArg = m.argIndex("g");
  betaArg = m.argIndex("beta");
  aLogArg = m.argIndex("a_log");
  dtBiasArg = m.argIndex("dt_bias");
  h0Arg = m.argIndex("initial_state");
  oArg = m.argIndex("o");
  htArg = m.argIndex("final_state");
  const std::pair<const char *, int> required[] = {
      {"q", qArg}, {"k", kArg}, {"v", vArg}, {"g", gArg}, {"beta", betaArg},
      {"o", oArg}};
  for (auto [name, index] : required)
    if (index < 0) {
      error = std::string("the bundle (program=chunk_fwd) has no argument '") +
              name + "'";
      return false;
    }
  const rt::ArgSpec &q = m.args[qArg];
  if (!opt.dtype.empty() && opt.dtype != rt::dtypeName(q.dtype)) {
    error = "--dtype " + opt.dtype + " does not match the bundle's input "
            "dtype " + rt::dtypeName(q.dtype) + " (argument 'q')";
    return false;
  }
  if (!bindBatchAndHeads(opt, m, q, m.args[vArg], error))
    return false;
  B = opt.batch;
  T = opt.seqLen;
  H = opt.heads;
  HV = opt.valueHeads;
  if (!parseKeyInt(m.key("K"), K) || !parseKeyInt(m.key("V"), V) ||
      !parseKeyInt(m.key("chunk"), chunk)) {
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
  std::string gate = m.key("gate") ? *m.key("gate") : "precomputed";
  if (gate == "precomputed")
    mode = ref::GateMode::Precomputed;
  else if (gate == "softplus")
    mode = ref::GateMode::Softplus;
  else if (gate == "lower_bound")
    mode = ref::GateMode::LowerBound;
  else {
    error = "the bundle's key gate=" + gate + " is not known";
    return false;
  }
  if (const std::string *lb = m.key("lower_bound"))
    lowerBound = std::strtod(lb->c_str(), nullptr);
  safeGate = keyFlag(m, "safe_gate");
  l2norm = keyFlag(m, "l2norm");
  betaSigmoid = keyFlag(m, "beta_sigmoid");
  allowNegEigval = keyFlag(m, "allow_neg_eigval");
  vk = m.key("state_layout") && *m.key("state_layout") == "vk";
  if (mode != ref::GateMode::Precomputed &&
      (opt.maskP != 0.0 || opt.gateNorm != 1.0)) {
    error = "--mask-p and --gate-norm apply to precomputed gates; the "
            "bundle's gate is " + gate;
    return false;
  }
  if (!checkCuSeqlens(opt, m, B, T, error))
    return false;
  N = opt.cuSeqlens.empty() ? B
                            : static_cast<int64_t>(opt.cuSeqlens.size()) - 1;
  int64_t numChunks = 0;
  seqs = sequencesOf(B, T, opt.cuSeqlens);
  for (const Sequence &s : seqs)
    numChunks += (s.length() + chunk - 1) / chunk;
  if (opt.cuSeqlens.empty())
    numChunks = (T + chunk - 1) / chunk;
  if (!sizeArguments(m,
                     {{"B", B}, {"T", T}, {"H", H}, {"HV", HV}, {"K", K},
                      {"V", V}, {"N", N}, {"NT", numChunks}},
                     opt.cuSeqlens.size(), argShapes, error) ||
      !checkSizes(m, argShapes, opt.cpu, error))
    return false;
  pairs = selectPairs(seqs, HV, opt.checkHeads, opt.seed);

  char number[32];
  std::snprintf(number, sizeof number, "%g", scale);
  description = "B=" + std::to_string(B) + " T=" + std::to_string(T) +
                " H=" + std::to_string(H) + " HV=" + std::to_string(HV) +
                " K=" + std::to_string(K) + " V=" + std::to_string(V) +
                " chunk=" + std::to_string(chunk) + " scale=" + number +
                " gate=" + gate + (safeGate ? " safe_gate" : "") +
                (l2norm ? " l2norm" : "") +
                (betaSigmoid ? " beta_sigmoid" : "") +
                (allowNegEigval ? " allow_neg_eigval" : "") +
                (vk ? " state_layout=vk" : "") +
                (h0Arg >= 0 ? " initial_state" : "") +
                (htArg >= 0 ? " final_state" : "") +
                " dtype=" + rt::dtypeName(q.dtype) +
                (opt.cuSeqlens.empty() ? "" : " cu_seqlens=" + opt.cuSeqlensText);
  description += inputOptionsText(opt);
  return true;
}

void ChunkFwdRunner::makeInputs(std::vector<HostTensor> &args) {
  RandomStream stream(opt.seed);
  // q and k ~ U[0,1), each row normalized unless the bundle does it.
  for (int a : {qArg, kArg}) {
    HostTensor &x = args[a];
    std::vector<double> values(x.size());
    stream.uniforms(x.size()).draw(
        [&](int64_t i, double u) { values[i] = u; });
    if (!l2norm)
      values = ref::l2normRows(values, K);
    for (int64_t i = 0; i < x.size(); ++i)
      x.set(i, values[i]);
  }
  HostTensor &v = args[vArg];
  stream.uniforms(v.size()).draw([&](int64_t i, double u) { v.set(i, u); });

  HostTensor &g = args[gArg];
  const RandomSegment gDraws = stream.normals(g.size());
  if (mode == ref::GateMode::Precomputed) {
    const RandomSegment maskDraws = stream.uniforms(g.size());
    gDraws.draw([&](int64_t i, double x) {
      double gate = std::log(ref::sigmoid(x)) / opt.gateNorm;
      g.set(i, safeGate ? std::max(gate, -5.0) : gate);
    });
    if (opt.maskP > 0.0)
      maskDraws.draw([&](int64_t i, double u) {
        if (u < opt.maskP)
          g.set(i, safeGate ? -5.0 : -1000.0);
      });
  } else {
    gDraws.draw([&](int64_t i, double x) { g.set(i, x); });
    for (int a : {aLogArg, dtBiasArg})
      if (a >= 0) {
        HostTensor &t = args[a];
        stream.normals(t.size()).draw(
            [&](int64_t i, double x) { t.set(i, x); });
      }
  }
  HostTensor &beta = args[betaArg];
  stream.normals(beta.size()).draw([&](int64_t i, double x) {
    beta.set(i, betaSigmoid ? x : ref::sigmoid(x));
  });
  if (h0Arg >= 0) {
    HostTensor &h0 = args[h0Arg];
    stream.normals(h0.size()).draw([&](int64_t i, double x) { h0.set(i, x); });
  }
}

void ChunkFwdRunner::injectError(std::vector<HostTensor> &args) {
  if (pairs.checked.empty())
    return;
  const HeadPair &p = pairs.all[pairs.checked.front()];
  const Sequence &s = seqs[p.seq];
  int64_t at = ((s.begin + s.length() / 2) * HV + p.head) * V;
  args[oArg].set(at, args[oArg].get(at) + 1.0);
}

ref::GateOptions ChunkFwdRunner::gateOptions(
    const std::vector<HostTensor> &args, int64_t nu, std::vector<double> &aLog,
    std::vector<double> &dtBias) const {
  ref::GateOptions go;
  go.mode = mode;
  go.lowerBound = lowerBound;
  if (aLogArg >= 0) {
    aLog.assign(1, args[aLogArg].get(nu));
    go.aLog = &aLog;
  }
  if (dtBiasArg >= 0) {
    dtBias.resize(K);
    for (int64_t d = 0; d < K; ++d)
      dtBias[d] = args[dtBiasArg].get(nu * K + d);
    go.dtBias = &dtBias;
  }
  return go;
}

void ChunkFwdRunner::check(const std::vector<HostTensor> &args,
                           std::vector<OutputStats> &outputs) {
  OutputStats oStats, htStats;
  oStats.name = "o";
  htStats.name = "final_state";
  oStats.threshold = htStats.threshold = kForwardThreshold;
  const HostTensor &o = args[oArg];
  oStats.total = o.size();
  for (int64_t i = 0; i < o.size(); ++i)
    if (!std::isfinite(o.get(i)))
      ++oStats.nonfinite;
  if (htArg >= 0) {
    htStats.total = args[htArg].size();
    for (int64_t i = 0; i < htStats.total; ++i)
      if (!std::isfinite(args[htArg].get(i)))
        ++htStats.nonfinite;
  }
  if (opt.noCheck) {
    oStats.compared = htStats.compared = false;
    outputs.push_back(oStats);
    if (htArg >= 0)
      outputs.push_back(htStats);
    return;
  }
  if (pairs.sampled())
    std::printf("checking %zu of %zu (sequence, head) pairs\n",
                pairs.checked.size(), pairs.all.size());

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
    ref::Problem p;
    p.B = 1;
    p.T = len;
    p.H = p.HV = 1;
    p.K = K;
    p.V = V;
    p.chunkSize = chunk;
    p.scale = scale;
    std::vector<double> q(len * K), k(len * K), v(len * V), g(len * K),
        beta(len);
    for (int64_t r = 0; r < len; ++r) {
      const int64_t row = s.begin + r;
      for (int64_t d = 0; d < K; ++d) {
        q[r * K + d] = args[qArg].get((row * H + head) * K + d);
        k[r * K + d] = args[kArg].get((row * H + head) * K + d);
        g[r * K + d] = args[gArg].get((row * HV + nu) * K + d);
      }
      for (int64_t d = 0; d < V; ++d)
        v[r * V + d] = args[vArg].get((row * HV + nu) * V + d);
      beta[r] = args[betaArg].get(row * HV + nu);
    }
    if (l2norm) {
      q = ref::l2normRows(q, K);
      k = ref::l2normRows(k, K);
    }
    if (betaSigmoid)
      beta = ref::betaSigmoid(beta, allowNegEigval);
    ref::GateOptions go = gateOptions(args, nu, aLog, dtBias);
    std::vector<double> gamma = ref::recurrenceGate(p, g, go);
    std::vector<double> h0;
    const int64_t seqIndex = static_cast<int64_t>(pair.seq);
    if (h0Arg >= 0) {
      h0.resize(K * V);
      for (int64_t kk = 0; kk < K; ++kk)
        for (int64_t vv = 0; vv < V; ++vv)
          h0[kk * V + vv] = args[h0Arg].get((seqIndex * HV + nu) * K * V +
                                            stateIndex(kk, vv));
    }
    ref::ForwardResult r = ref::recurrentForward(
        p, q, k, v, gamma, beta, h0Arg >= 0 ? &h0 : nullptr);
    for (int64_t t = 0; t < len; ++t)
      for (int64_t d = 0; d < V; ++d) {
        double out = o.get(((s.begin + t) * HV + nu) * V + d);
        if (std::isfinite(out))
          oStats.add(out, r.o[t * V + d]);
      }
    if (htArg >= 0) {
      stateChecked[seqIndex * HV + nu] = true;
      for (int64_t kk = 0; kk < K; ++kk)
        for (int64_t vv = 0; vv < V; ++vv) {
          double out = args[htArg].get((seqIndex * HV + nu) * K * V +
                                       stateIndex(kk, vv));
          if (std::isfinite(out))
            htStats.add(out, r.finalState[kk * V + vv]);
        }
    }
  }
  // Empty sequences have no (sequence, head) pair: their final state is the
  // initial state (or 0), checked here when all pairs are checked.
  if (htArg >= 0 && !pairs.sampled())
    for (int64_t n = 0; n < N; ++n)
      for (int64_t nu = 0; nu < HV; ++nu) {
        if (stateChecked[n * HV + nu])
          continue;
        for (int64_t i = 0; i < K * V; ++i) {
          int64_t at = (n * HV + nu) * K * V + i;
          double expected = h0Arg >= 0 ? args[h0Arg].get(at) : 0.0;
          double out = args[htArg].get(at);
          if (std::isfinite(out))
            htStats.add(out, expected);
        }
      }
  outputs.push_back(oStats);
  if (htArg >= 0)
    outputs.push_back(htStats);
}

} // namespace

std::unique_ptr<ProgramRunner> makeChunkFwdRunner() {
  return std::make_unique<ChunkFwdRunner>();
}

} // namespace kda::run
