//===- StageInputs.cpp - shared setup of the later-stage runners ----------===//

#include "StageInputs.h"

#include "HostTensor.h"
#include "Setup.h"
#include "RandomStream.h"
#include "Parallel.h"

#include "kda/Runtime/Types.h"

#include <algorithm>
#include <cmath>

namespace kda::run {

namespace {

/// The last dimension of argument `name`, static or from key `key`.
bool lastDim(const rt::Manifest &m, const char *name, const char *key,
             int64_t &out, std::string &error) {
  const rt::ArgSpec &spec = m.args[m.argIndex(name)];
  const rt::DimSpec &d = spec.dims.back();
  if (d.isStatic()) {
    out = d.size;
    return true;
  }
  if (parseKeyInt(m.key(key), out))
    return true;
  error = std::string("the bundle fixes no ") + key +
          " (neither a static last dimension of '" + name + "' nor a key " +
          key + "=...)";
  return false;
}

} // namespace

bool configureStage(const Options &opt, const rt::Manifest &m,
                    const char *program, const std::vector<StageArg> &args,
                    const char *kArg, const char *vArg, StageSetup &s,
                    std::string &error) {
  if (!bindArguments(m, program, args, s.index, error))
    return false;
  const rt::ArgSpec &k = m.args[m.argIndex(kArg)];
  const rt::ArgSpec &v = m.args[m.argIndex(vArg)];
  if (!opt.dtype.empty() && opt.dtype != rt::dtypeName(k.dtype)) {
    error = "--dtype " + opt.dtype + " does not match the bundle's dtype " +
            rt::dtypeName(k.dtype) + " (argument '" + kArg + "')";
    return false;
  }
  if (!checkStaticDim(k, 0, opt.batch, "--batch", "static batch size",
                      error) ||
      !checkStaticDim(k, 1, opt.seqLen, "--seq-len", "static token count",
                      error) ||
      !checkStaticDim(k, 2, opt.heads, "--heads", "H", error) ||
      !checkStaticDim(v, 2, opt.valueHeads, "--value-heads", "HV", error))
    return false;
  s.B = opt.batch;
  s.T = opt.seqLen;
  s.H = opt.heads;
  s.HV = opt.valueHeads;
  if (s.H < 1 || s.HV % s.H != 0) {
    error = "--heads " + std::to_string(s.H) + " does not divide --value-heads " +
            std::to_string(s.HV);
    return false;
  }
  if (!lastDim(m, kArg, "K", s.K, error) || !lastDim(m, vArg, "V", s.V, error))
    return false;
  const std::string *chunk = m.key("chunk");
  if (!chunk || !parseKeyInt(chunk, s.BT) || (s.BT != 32 && s.BT != 64)) {
    error = "the bundle has no key chunk=32 or chunk=64";
    return false;
  }
  if (!checkCuSeqlens(opt, m, s.B, s.T, error))
    return false;
  s.NT = 0;
  if (opt.cuSeqlens.empty())
    s.NT = (s.T + s.BT - 1) / s.BT;
  else
    for (size_t n = 0; n + 1 < opt.cuSeqlens.size(); ++n)
      s.NT += (opt.cuSeqlens[n + 1] - opt.cuSeqlens[n] + s.BT - 1) / s.BT;
  return sizeArguments(m,
                       {{"B", s.B},
                        {"T", s.T},
                        {"H", s.H},
                        {"HV", s.HV},
                        {"K", s.K},
                        {"V", s.V},
                        {"BT", s.BT},
                        {"NT", s.NT}},
                       opt.cuSeqlens.size(), s.shapes, error) &&
         checkSizes(m, s.shapes, opt.cpu, error);
}

ref::Problem stageProblem(const StageSetup &s, const Options &opt,
                          double scale, ref::StateLayout layout) {
  ref::Problem p;
  p.B = s.B;
  p.T = s.T;
  p.H = s.H;
  p.HV = s.HV;
  p.K = s.K;
  p.V = s.V;
  p.chunkSize = s.BT;
  p.cuSeqlens = opt.cuSeqlens;
  p.scale = scale;
  p.stateLayout = layout;
  return p;
}

StageInputs makeStageInputs(const ref::Problem &p, const Options &opt,
                            rt::DType qk, rt::DType v, rt::DType beta) {
  StageInputs in;
  ref::Rng rng(opt.seed);
  auto draw = [&](int64_t n) {
    std::vector<double> x(static_cast<size_t>(n));
    for (double &e : x)
      e = rng.normal();
    return x;
  };
  auto roundAll = [](std::vector<double> &x, rt::DType dtype) {
    for (double &e : x)
      e = roundTo(dtype, e);
  };
  // q, k: L2-normalized randn rows; v: randn (fla's varlen tests).
  in.q = ref::l2normRows(draw(p.qkSize()), p.K);
  in.k = ref::l2normRows(draw(p.qkSize()), p.K);
  in.v = draw(p.valueSize());
  roundAll(in.q, qk);
  roundAll(in.k, qk);
  roundAll(in.v, v);
  // g = logsigmoid(randn) / gate_norm, -1000 with probability mask_p.
  std::vector<double> g = draw(p.gateSize());
  for (double &e : g)
    e = std::log(ref::sigmoid(e)) / opt.gateNorm;
  if (opt.maskP > 0.0)
    for (double &e : g)
      if (rng.uniform() < opt.maskP)
        e = -1000.0;
  in.G = ref::gateCumsum(p, g);
  roundAll(in.G, rt::DType::F32);
  in.beta = draw(p.betaSize());
  for (double &e : in.beta)
    e = roundTo(beta, ref::sigmoid(e));
  in.forward = ref::chunkedForward(p, in.q, in.k, in.v, in.G, in.beta);
  return in;
}

void drawChunkStageInputs(const Options &opt, bool safeGate, int64_t chunk,
                          int64_t HV, int64_t K,
                          const std::vector<Sequence> &seqs,
                          const std::vector<HeadPair> &pairs, HostTensor &q,
                          HostTensor &k, HostTensor &G, HostTensor &beta) {
  RandomStream stream(opt.seed);
  const RandomSegment qDraws = stream.normals(q.size());
  const RandomSegment kDraws = stream.normals(k.size());
  const RandomSegment gDraws = stream.normals(G.size());
  const RandomSegment maskDraws = stream.uniforms(G.size());
  const RandomSegment betaDraws = stream.normals(beta.size());

  drawNormalizedRows(qDraws, K, q);
  drawNormalizedRows(kDraws, K, k);
  std::vector<double> g(static_cast<size_t>(G.size()));
  gDraws.draw([&](int64_t i, double v) {
    g[i] = std::log(ref::sigmoid(v)) / opt.gateNorm;
  });
  if (opt.maskP > 0.0)
    maskDraws.draw([&](int64_t i, double u) {
      if (u < opt.maskP)
        g[i] = -1000.0;
    });
  if (safeGate)
    for (double &x : g)
      x = std::clamp(x, -5.0, 0.0);
  parallelFor(pairs.size(), [&](size_t i) {
    const Sequence &s = seqs[pairs[i].seq];
    const int64_t head = pairs[i].head, len = s.length();
    ref::Problem p;
    p.T = len;
    p.K = K;
    p.V = 1;
    p.chunkSize = chunk;
    std::vector<double> slice(static_cast<size_t>(len * K));
    for (int64_t r = 0; r < len; ++r)
      for (int64_t d = 0; d < K; ++d)
        slice[r * K + d] = g[((s.begin + r) * HV + head) * K + d];
    std::vector<double> cumsum = ref::gateCumsum(p, slice);
    for (int64_t r = 0; r < len; ++r)
      for (int64_t d = 0; d < K; ++d)
        G.set(((s.begin + r) * HV + head) * K + d, cumsum[r * K + d]);
  });
  betaDraws.draw([&](int64_t i, double v) { beta.set(i, ref::sigmoid(v)); });
}

} // namespace kda::run
