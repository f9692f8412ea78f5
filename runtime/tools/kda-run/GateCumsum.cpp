//===- GateCumsum.cpp - kda-run for program=gate_cumsum -------------------===//
//
// Inputs g [B,T,HV,K] (the bundle's dtype), optional a_log [HV] and dt_bias
// [HV,K] or [HV*K], optional cu_seqlens; output G [B,T,HV,K] f32. Inputs are
// made like fla's tests: precomputed gates logsigmoid(randn), in-kernel gates
// randn with randn A_log and dt_bias. The reference is kda::ref::gateCumsum,
// computed per (sequence, value head) so that --check-heads can pick a few.
//
//===----------------------------------------------------------------------===//

#include "ProgramRunner.h"

#include "kda/Reference/Reference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kda::run {

namespace {

class GateCumsumRunner : public ProgramRunner {
public:
  bool configure(const Options &options, const rt::Manifest &manifest,
                 std::string &error) override;
  std::string describe() const override { return description; }
  const std::vector<std::vector<int64_t>> &shapes() const override {
    return argShapes;
  }
  void makeInputs(std::vector<HostTensor> &args) override;
  void check(const std::vector<HostTensor> &args,
             std::vector<OutputStats> &outputs) override;

private:
  Options opt;
  int gArg = -1, outArg = -1, aLogArg = -1, dtBiasArg = -1, cuArg = -1;
  int64_t B = 0, T = 0, H = 0, HV = 0, K = 0, chunk = 64;
  ref::GateMode mode = ref::GateMode::Precomputed;
  double lowerBound = -5.0;
  std::vector<int64_t> cu;
  std::vector<std::vector<int64_t>> argShapes;
  std::string description;
};

bool parseKeyInt(const std::string *v, int64_t &out) {
  if (!v || v->empty())
    return false;
  char *end = nullptr;
  long long x = std::strtoll(v->c_str(), &end, 10);
  if (*end)
    return false;
  out = x;
  return true;
}

bool GateCumsumRunner::configure(const Options &options,
                                 const rt::Manifest &m, std::string &error) {
  opt = options;
  gArg = m.argIndex("g");
  outArg = m.argIndex("G");
  aLogArg = m.argIndex("a_log");
  dtBiasArg = m.argIndex("dt_bias");
  cuArg = m.cuSeqlensArg;
  if (gArg < 0 || outArg < 0) {
    error = "the bundle (program=gate_cumsum) has no argument '" +
            std::string(gArg < 0 ? "g" : "G") + "'";
    return false;
  }
  const rt::ArgSpec &g = m.args[gArg];
  const rt::ArgSpec &G = m.args[outArg];
  if (g.role != rt::ArgRole::Input || g.rank() != 4) {
    error = "the bundle's 'g' must be a rank-4 input [B,T,HV,K], it is " +
            g.dimsText;
    return false;
  }
  if (G.role != rt::ArgRole::Output || G.rank() != 4 ||
      G.dtype != rt::DType::F32) {
    error = "the bundle's 'G' must be a rank-4 f32 output [B,T,HV,K]";
    return false;
  }
  if (!opt.dtype.empty() && opt.dtype != rt::dtypeName(g.dtype)) {
    error = "--dtype " + opt.dtype + " does not match the bundle's input "
            "dtype " + rt::dtypeName(g.dtype) + " (argument 'g')";
    return false;
  }
  // B, T and HV from the flags, checked against static dims; K from the
  // bundle.
  struct {
    int dim;
    int64_t flag;
    const char *flagName;
    const char *what;
    int64_t *out;
  } sizes[] = {{0, opt.batch, "--batch", "static batch size", &B},
               {1, opt.seqLen, "--seq-len", "static token count", &T},
               {2, opt.valueHeads, "--value-heads", "HV", &HV}};
  for (auto &s : sizes) {
    const rt::DimSpec &d = g.dims[s.dim];
    if (d.isStatic() && d.size != s.flag) {
      error = std::string(s.flagName) + " " + std::to_string(s.flag) +
              " does not match the bundle's " + s.what + " " +
              std::to_string(d.size);
      return false;
    }
    *s.out = s.flag;
  }
  int64_t keyValue;
  if (parseKeyInt(m.key("HV"), keyValue) && keyValue != HV) {
    error = "--value-heads " + std::to_string(HV) +
            " does not match the bundle's HV " + std::to_string(keyValue);
    return false;
  }
  if (g.dims[3].isStatic())
    K = g.dims[3].size;
  else if (!parseKeyInt(m.key("K"), K)) {
    error = "the bundle fixes no K (neither a static last dimension of 'g' "
            "nor a key K=...)";
    return false;
  }
  H = opt.heads;
  if (HV % H != 0) {
    error = "--heads " + std::to_string(H) + " does not divide --value-heads " +
            std::to_string(HV);
    return false;
  }
  if (const std::string *c = m.key("chunk")) {
    if (!parseKeyInt(c, chunk) || (chunk != 32 && chunk != 64)) {
      error = "the bundle's key chunk=" + *c + " is not 32 or 64";
      return false;
    }
  }
  std::string gate = m.key("gate") ? *m.key("gate") : "precomputed";
  if (gate == "precomputed")
    mode = ref::GateMode::Precomputed;
  else if (gate == "softplus")
    mode = ref::GateMode::Softplus;
  else if (gate == "lower_bound")
    mode = ref::GateMode::LowerBound;
  else {
    error = "the bundle's key gate=" + gate +
            " is not precomputed, softplus or lower_bound";
    return false;
  }
  if (const std::string *lb = m.key("lower_bound")) {
    char *end = nullptr;
    lowerBound = std::strtod(lb->c_str(), &end);
    if (lb->empty() || *end) {
      error = "the bundle's key lower_bound=" + *lb + " is not a number";
      return false;
    }
  }

  // Varlen.
  if (cuArg >= 0 && opt.cuSeqlens.empty()) {
    error = "the bundle takes cu_seqlens: pass --cu-seqlens";
    return false;
  }
  if (cuArg < 0 && !opt.cuSeqlens.empty()) {
    error = "the bundle is not varlen: drop --cu-seqlens";
    return false;
  }
  cu = opt.cuSeqlens;
  if (!cu.empty()) {
    if (B != 1) {
      error = "--cu-seqlens needs --batch 1";
      return false;
    }
    if (cu.size() < 2) {
      error = "cu_seqlens needs at least 2 entries, got " +
              std::to_string(cu.size());
      return false;
    }
    if (cu.front() != 0) {
      error = "cu_seqlens must start at 0, got " + std::to_string(cu.front());
      return false;
    }
    for (size_t i = 1; i < cu.size(); ++i)
      if (cu[i] < cu[i - 1]) {
        error = "cu_seqlens must be non-decreasing: cu_seqlens[" +
                std::to_string(i) + "] = " + std::to_string(cu[i]) +
                " < cu_seqlens[" + std::to_string(i - 1) +
                "] = " + std::to_string(cu[i - 1]);
        return false;
      }
    if (cu.back() != T) {
      error = "cu_seqlens must end at T = " + std::to_string(T) +
              " (--seq-len), got " + std::to_string(cu.back());
      return false;
    }
  }

  // Every argument's shape.
  argShapes.clear();
  for (const rt::ArgSpec &a : m.args) {
    std::vector<int64_t> shape;
    for (const rt::DimSpec &d : a.dims) {
      if (d.isStatic()) {
        shape.push_back(d.size);
        continue;
      }
      const std::string &sym = m.symbols[d.symbol];
      int64_t v = sym == "B"    ? B
                  : sym == "T"  ? T
                  : sym == "HV" ? HV
                  : sym == "H"  ? H
                  : sym == "K"  ? K
                  : sym == "N1" ? static_cast<int64_t>(cu.size())
                                : -1;
      if (v < 0) {
        error = "argument '" + a.name + "' has a dimension '" + sym +
                "' that kda-run cannot size";
        return false;
      }
      shape.push_back(v);
    }
    argShapes.push_back(shape);
  }
  std::vector<int64_t> bthk = {B, T, HV, K};
  if (argShapes[gArg] != bthk || argShapes[outArg] != bthk) {
    error = "'g' and 'G' must both be [B,T,HV,K]";
    return false;
  }
  if (aLogArg >= 0 && argShapes[aLogArg] != std::vector<int64_t>{HV}) {
    error = "the bundle's 'a_log' must be [HV]";
    return false;
  }
  if (dtBiasArg >= 0 &&
      argShapes[dtBiasArg] != std::vector<int64_t>{HV, K} &&
      argShapes[dtBiasArg] != std::vector<int64_t>{HV * K}) {
    error = "the bundle's 'dt_bias' must be [HV,K] or [HV*K]";
    return false;
  }

  char lb[32];
  std::snprintf(lb, sizeof lb, "%g", lowerBound);
  description = "B=" + std::to_string(B) + " T=" + std::to_string(T) +
                " H=" + std::to_string(H) + " HV=" + std::to_string(HV) +
                " K=" + std::to_string(K) + " chunk=" + std::to_string(chunk) +
                " gate=" + gate +
                (mode == ref::GateMode::LowerBound ? "(" + std::string(lb) + ")"
                                                   : std::string()) +
                " dtype=" + rt::dtypeName(g.dtype) +
                (cu.empty() ? "" : " cu_seqlens=" + opt.cuSeqlensText) +
                " seed=" + std::to_string(opt.seed);
  return true;
}

void GateCumsumRunner::makeInputs(std::vector<HostTensor> &args) {
  ref::Rng rng(opt.seed);
  HostTensor &g = args[gArg];
  if (mode == ref::GateMode::Precomputed) {
    for (int64_t i = 0; i < g.size(); ++i)
      g.set(i, std::log(ref::sigmoid(rng.normal())));
  } else {
    for (int64_t i = 0; i < g.size(); ++i)
      g.set(i, rng.normal());
  }
  if (aLogArg >= 0)
    for (int64_t i = 0; i < args[aLogArg].size(); ++i)
      args[aLogArg].set(i, rng.normal());
  if (dtBiasArg >= 0)
    for (int64_t i = 0; i < args[dtBiasArg].size(); ++i)
      args[dtBiasArg].set(i, rng.normal());
}

void GateCumsumRunner::check(const std::vector<HostTensor> &args,
                             std::vector<OutputStats> &outputs) {
  const HostTensor &out = args[outArg];
  OutputStats st;
  st.name = "G";
  st.threshold = 1e-5;
  st.total = out.size();
  for (int64_t i = 0; i < out.size(); ++i)
    if (!std::isfinite(out.get(i)))
      ++st.nonfinite;
  if (opt.noCheck) {
    st.compared = false;
    outputs.push_back(st);
    return;
  }

  // (sequence, value head) pairs over non-empty sequences.
  std::vector<std::pair<int64_t, int64_t>> seqs;
  if (cu.empty())
    for (int64_t b = 0; b < B; ++b)
      seqs.push_back({b * T, (b + 1) * T});
  else
    for (size_t n = 0; n + 1 < cu.size(); ++n)
      seqs.push_back({cu[n], cu[n + 1]});
  std::vector<std::pair<size_t, int64_t>> pairs;
  for (size_t s = 0; s < seqs.size(); ++s)
    if (seqs[s].second > seqs[s].first)
      for (int64_t nu = 0; nu < HV; ++nu)
        pairs.push_back({s, nu});
  size_t total = pairs.size();
  if (opt.checkHeads > 0 && static_cast<size_t>(opt.checkHeads) < total) {
    ref::Rng pick(opt.seed ^ 0x9E3779B97F4A7C15ULL);
    size_t n = static_cast<size_t>(opt.checkHeads);
    for (size_t i = 0; i < n; ++i) {
      size_t j = i + static_cast<size_t>(pick.next() % (total - i));
      std::swap(pairs[i], pairs[j]);
    }
    pairs.resize(n);
    std::sort(pairs.begin(), pairs.end());
    std::printf("checking %zu of %zu (sequence, head) pairs\n", n, total);
  }

  const HostTensor &g = args[gArg];
  std::vector<double> aLog(1), dtBias(K), slice;
  for (const auto &[s, nu] : pairs) {
    int64_t begin = seqs[s].first, len = seqs[s].second - begin;
    ref::Problem p;
    p.B = 1;
    p.T = len;
    p.H = p.HV = 1;
    p.K = K;
    p.V = 1;
    p.chunkSize = chunk;
    ref::GateOptions go;
    go.mode = mode;
    go.lowerBound = lowerBound;
    if (aLogArg >= 0) {
      aLog[0] = args[aLogArg].get(nu);
      go.aLog = &aLog;
    }
    if (dtBiasArg >= 0) {
      for (int64_t d = 0; d < K; ++d)
        dtBias[d] = args[dtBiasArg].get(nu * K + d);
      go.dtBias = &dtBias;
    }
    slice.resize(static_cast<size_t>(len * K));
    for (int64_t r = 0; r < len; ++r)
      for (int64_t d = 0; d < K; ++d)
        slice[r * K + d] = g.get(((begin + r) * HV + nu) * K + d);
    std::vector<double> expected = ref::gateCumsum(p, slice, go);
    for (int64_t r = 0; r < len; ++r)
      for (int64_t d = 0; d < K; ++d) {
        double o = out.get(((begin + r) * HV + nu) * K + d);
        if (std::isfinite(o))
          st.add(o, expected[r * K + d]);
      }
  }
  outputs.push_back(st);
}

} // namespace

std::unique_ptr<ProgramRunner> makeRunner(const std::string &program) {
  if (program == "gate_cumsum")
    return std::make_unique<GateCumsumRunner>();
  if (program == "custom")
    return makeCustomRunner();
  return nullptr;
}

const char *knownPrograms() { return "gate_cumsum, custom"; }

} // namespace kda::run
