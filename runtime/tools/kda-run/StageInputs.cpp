//===- StageInputs.cpp - realistic inputs of one stage --------------------===//

#include "StageInputs.h"

#include "Gates.h"
#include "Parallel.h"
#include "RandomStream.h"
#include "StageRunner.h"

#include "kda/Runtime/Types.h"

#include <algorithm>
#include <cmath>

namespace kda::run {

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
  drawPrecomputedGates(opt, gDraws, maskDraws,
                       [&](int64_t i, double x) { g[i] = x; });
  if (safeGate)
    for (double &x : g)
      x = std::clamp(x, -5.0, 0.0);
  parallelFor(pairs.size(), [&](size_t i) {
    const Sequence &s = seqs[pairs[i].seq];
    const int64_t head = pairs[i].head, len = s.length();
    ref::Problem p = pairProblem(len, K, 1, chunk);
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
