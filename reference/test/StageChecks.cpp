//===- StageChecks.cpp - direct checks of single chunked stages -----------===//

#include "StageChecks.h"

#include "kda/Reference/Metric.h"
#include "kda/Reference/Recurrence.h"

#include <algorithm>
#include <cmath>

namespace kda::ref::test {
namespace {

/// Rows [begin, end) of a [rows, heads, D] tensor.
std::vector<double> sliceRows(const std::vector<double> &x, int64_t begin,
                              int64_t end, int64_t width) {
  return std::vector<double>(x.begin() + begin * width,
                             x.begin() + end * width);
}

} // namespace

double intraStageError(const Problem &p, const std::vector<double> &q,
                       const std::vector<double> &k,
                       const std::vector<double> &gamma,
                       const std::vector<double> &beta,
                       const ChunkedForward &f) {
  const int64_t HV = p.HV, K = p.K, BT = p.chunkSize;
  const double scale = p.effectiveScale();
  std::vector<double> Aqk(f.Aqk.size(), 0.0), Akk(f.Akk.size(), 0.0);
  std::vector<double> kg(f.kg.size(), 0.0), decay(K);
  for (const Chunk &c : p.chunks())
    for (int64_t nu = 0; nu < HV; ++nu) {
      const int64_t hq = p.qkHead(nu);
      for (int64_t i = c.begin; i < c.end; ++i) {
        // decay_d = exp(sum_{j<r<=i} gamma_r,d), built for j = i down to
        // the chunk start.
        std::fill(decay.begin(), decay.end(), 1.0);
        std::vector<double> logDecay(K, 0.0);
        for (int64_t j = i; j >= c.begin; --j) {
          double sq = 0.0, sk = 0.0;
          for (int64_t d = 0; d < K; ++d) {
            double e = std::exp(logDecay[d]);
            sq += q[at3(i, hq, d, p.H, K)] * k[at3(j, hq, d, p.H, K)] * e;
            sk += k[at3(i, hq, d, p.H, K)] * k[at3(j, hq, d, p.H, K)] * e;
          }
          Aqk[at3(i, nu, j - c.begin, HV, BT)] = scale * sq;
          if (j < i)
            Akk[at3(i, nu, j - c.begin, HV, BT)] = beta[at2(i, nu, HV)] * sk;
          for (int64_t d = 0; d < K; ++d)
            logDecay[d] += gamma[at3(j, nu, d, HV, K)];
        }
      }
      // kg_i = k_i * exp(sum_{i<r<=last} gamma_r).
      std::vector<double> tail(K, 0.0);
      for (int64_t i = c.end - 1; i >= c.begin; --i) {
        for (int64_t d = 0; d < K; ++d)
          kg[at3(i, nu, d, HV, K)] =
              k[at3(i, hq, d, p.H, K)] * std::exp(tail[d]);
        for (int64_t d = 0; d < K; ++d)
          tail[d] += gamma[at3(i, nu, d, HV, K)];
      }
    }
  double worst = 0.0;
  for (auto [got, want] : {std::make_pair(&f.Aqk, &Aqk),
                           std::make_pair(&f.Akk, &Akk),
                           std::make_pair(&f.kg, &kg)}) {
    ErrorStats s = compareTensors(*got, *want);
    worst = std::max(worst, s.finite ? s.relRms : INFINITY);
  }
  return worst;
}

double chunkStateError(const Problem &p, const std::vector<double> &q,
                       const std::vector<double> &k,
                       const std::vector<double> &v,
                       const std::vector<double> &gamma,
                       const std::vector<double> &beta,
                       const std::vector<double> *h0,
                       const std::vector<double> &h) {
  const int64_t HV = p.HV, KV = p.K * p.V;
  std::vector<double> want(h.size(), 0.0);
  std::vector<Sequence> seqs = p.sequences();
  for (const Chunk &c : p.chunks()) {
    // One-sequence problem holding the prefix [seq.begin, c.begin).
    const Sequence &s = seqs[c.seq];
    Problem sub = p;
    sub.B = 1;
    sub.T = c.begin - s.begin;
    sub.cuSeqlens.clear();
    std::vector<double> subH0;
    if (h0)
      subH0 = sliceRows(*h0, c.seq, c.seq + 1, HV * KV);
    ForwardResult r = recurrentForward(
        sub, sliceRows(q, s.begin, c.begin, p.H * p.K),
        sliceRows(k, s.begin, c.begin, p.H * p.K),
        sliceRows(v, s.begin, c.begin, HV * p.V),
        sliceRows(gamma, s.begin, c.begin, HV * p.K),
        sliceRows(beta, s.begin, c.begin, HV), h0 ? &subH0 : nullptr);
    std::copy(r.finalState.begin(), r.finalState.end(),
              want.begin() + p.stateOffset(c.id, 0));
  }
  ErrorStats st = compareTensors(h, want);
  return st.finite ? st.relRms : INFINITY;
}

} // namespace kda::ref::test
