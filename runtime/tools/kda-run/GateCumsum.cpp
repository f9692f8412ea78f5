//===- GateCumsum.cpp - kda-run for program=gate_cumsum -------------------===//
//
// Inputs g [B,T,HV,K] (the bundle's dtype), optional a_log [HV] and dt_bias
// [HV,K] or [HV*K], optional cu_seqlens; output G [B,T,HV,K] f32. Inputs are
// made like fla's tests: precomputed gates logsigmoid(randn) / gate_norm,
// set to -1000 with probability mask_p; in-kernel gates randn with randn
// A_log and dt_bias. The reference is kda::ref::gateCumsum, computed per
// (sequence, value head) so that --check-heads can pick a few.
//
//===----------------------------------------------------------------------===//

#include "Pairs.h"
#include "ProgramRunner.h"
#include "RandomStream.h"
#include "Setup.h"

#include "kda/Reference/Reference.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kda::run {

namespace {

/// kda.gate_cumsum: the chunk-local cumsum of (activated) gates.
class GateCumsumRunner : public ProgramRunner {
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
  Options opt;
  int gArg = -1, outArg = -1, aLogArg = -1, dtBiasArg = -1;
  int64_t B = 0, T = 0, H = 0, HV = 0, K = 0, chunk = 64;
  ref::GateMode mode = ref::GateMode::Precomputed;
  double lowerBound = -5.0;
  std::vector<Sequence> seqs;
  PairSelection pairs;
  std::vector<std::vector<int64_t>> argShapes;
  std::string description;
};

bool GateCumsumRunner::configure(const Options &options, const rt::Manifest &m,
                                 std::string &error) {
  opt = options;
  gArg = m.argIndex("g");
  outArg = m.argIndex("G");
  aLogArg = m.argIndex("a_log");
  dtBiasArg = m.argIndex("dt_bias");
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
    error = "--dtype " + opt.dtype +
            " does not match the bundle's input "
            "dtype " +
            rt::dtypeName(g.dtype) + " (argument 'g')";
    return false;
  }
  // B, T and HV from the flags, checked against static dims; K from the
  // bundle.
  if (!checkStaticDim(g, 0, opt.batch, "--batch", "static batch size", error) ||
      !checkStaticDim(g, 1, opt.seqLen, "--seq-len", "static token count",
                      error) ||
      !checkStaticDim(g, 2, opt.valueHeads, "--value-heads", "HV", error))
    return false;
  B = opt.batch;
  T = opt.seqLen;
  HV = opt.valueHeads;
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
  if (mode != ref::GateMode::Precomputed &&
      (opt.maskP != 0.0 || opt.gateNorm != 1.0)) {
    error = "--mask-p and --gate-norm apply to precomputed gates; the "
            "bundle's gate is " +
            gate;
    return false;
  }
  if (!checkCuSeqlens(opt, m, B, T, error))
    return false;

  // Every argument's shape.
  if (!sizeArguments(m, {{"B", B}, {"T", T}, {"HV", HV}, {"H", H}, {"K", K}},
                     opt.cuSeqlens.size(), argShapes, error) ||
      !checkSizes(m, argShapes, opt.cpu, error))
    return false;
  std::vector<int64_t> bthk = {B, T, HV, K};
  if (argShapes[gArg] != bthk || argShapes[outArg] != bthk) {
    error = "'g' and 'G' must both be [B,T,HV,K]";
    return false;
  }
  if (aLogArg >= 0 && argShapes[aLogArg] != std::vector<int64_t>{HV}) {
    error = "the bundle's 'a_log' must be [HV]";
    return false;
  }
  if (dtBiasArg >= 0 && argShapes[dtBiasArg] != std::vector<int64_t>{HV, K} &&
      argShapes[dtBiasArg] != std::vector<int64_t>{HV * K}) {
    error = "the bundle's 'dt_bias' must be [HV,K] or [HV*K]";
    return false;
  }
  seqs = sequencesOf(B, T, opt.cuSeqlens);
  pairs = selectPairs(seqs, HV, opt.checkHeads, opt.seed);

  char number[32];
  std::snprintf(number, sizeof number, "%g", lowerBound);
  description =
      "B=" + std::to_string(B) + " T=" + std::to_string(T) +
      " H=" + std::to_string(H) + " HV=" + std::to_string(HV) +
      " K=" + std::to_string(K) + " chunk=" + std::to_string(chunk) +
      " gate=" + gate +
      (mode == ref::GateMode::LowerBound ? "(" + std::string(number) + ")"
                                         : std::string()) +
      " dtype=" + rt::dtypeName(g.dtype) +
      (opt.cuSeqlens.empty() ? "" : " cu_seqlens=" + opt.cuSeqlensText);
  description += inputOptionsText(opt);
  return true;
}

void GateCumsumRunner::makeInputs(std::vector<HostTensor> &args) {
  // The generator's stream: g, then the mask (precomputed gates) or A_log
  // and dt_bias (in-kernel gates); each part drawn in parallel pieces.
  HostTensor &g = args[gArg];
  RandomStream stream(opt.seed);
  const RandomSegment gDraws = stream.normals(g.size());
  if (mode == ref::GateMode::Precomputed) {
    const RandomSegment maskDraws = stream.uniforms(g.size());
    gDraws.draw([&](int64_t i, double v) {
      g.set(i, std::log(ref::sigmoid(v)) / opt.gateNorm);
    });
    // -1000 is exact in every dtype, so masking after the rounding is the
    // same as before it.
    if (opt.maskP > 0.0)
      maskDraws.draw([&](int64_t i, double u) {
        if (u < opt.maskP)
          g.set(i, -1000.0);
      });
    return;
  }
  gDraws.draw([&](int64_t i, double v) { g.set(i, v); });
  for (int a : {aLogArg, dtBiasArg})
    if (a >= 0) {
      HostTensor &t = args[a];
      stream.normals(t.size()).draw([&](int64_t i, double v) { t.set(i, v); });
    }
}

void GateCumsumRunner::injectError(std::vector<HostTensor> &args) {
  if (pairs.checked.empty())
    return;
  const HeadPair &p = pairs.all[pairs.checked.front()];
  const Sequence &s = seqs[p.seq];
  int64_t at = ((s.begin + s.length() / 2) * HV + p.head) * K;
  args[outArg].set(at, args[outArg].get(at) + 1.0);
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
  if (pairs.sampled())
    std::printf("checking %zu of %zu (sequence, head) pairs\n",
                pairs.checked.size(), pairs.all.size());

  const HostTensor &g = args[gArg];
  std::vector<double> aLog(1), dtBias(K), slice;
  for (size_t index : pairs.checked) {
    const HeadPair &pair = pairs.all[index];
    const int64_t nu = pair.head, begin = seqs[pair.seq].begin,
                  len = seqs[pair.seq].length();
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
    slice = gatherHead(g, begin, len, nu, HV, K);
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

std::unique_ptr<ProgramRunner> makeGateCumsumRunner() {
  return std::make_unique<GateCumsumRunner>();
}

} // namespace kda::run
