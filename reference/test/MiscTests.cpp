//===- MiscTests.cpp - problem indexing, preprocessing, metric, RNG -------===//

#include "Tests.h"

#include "kda/Reference/Reference.h"

#include <cmath>
#include <stdexcept>

namespace kda::ref::test {
namespace {

void problemTests(Harness &h) {
  Problem p;
  p.T = 300;
  p.H = 2;
  p.HV = 4;
  p.K = 5;
  p.V = 3;
  p.cuSeqlens = {0, 1, 64, 65, 300};
  // Chunks: seq0 [0,1); seq1 [1,64); seq2 [64,65); seq3 [65,129) [129,193)
  // [193,257) [257,300).
  std::vector<Chunk> cs = p.chunks();
  std::vector<int64_t> offs = p.chunkOffsets();
  bool ok = cs.size() == 7 && p.chunksPerBatch() == 7 &&
            offs == std::vector<int64_t>{0, 1, 2, 3, 7} && cs[3].seq == 3 &&
            cs[3].local == 0 && cs[3].begin == 65 && cs[3].end == 129 &&
            cs[6].id == 6 && cs[6].size() == 43 && p.numSequences() == 4;
  h.record("problem/varlen-chunks", ok, "chunk ids, offsets, tail size");

  Problem f;
  f.B = 2;
  f.T = 65;
  f.K = 4;
  f.V = 4;
  f.chunkSize = 32;
  std::vector<Chunk> fc = f.chunks();
  ok = fc.size() == 6 && f.chunksPerBatch() == 3 && fc[3].id == 3 &&
       fc[3].seq == 1 && fc[3].begin == 65 && fc[5].size() == 1 &&
       std::fabs(f.effectiveScale() - 0.5) < 1e-16;
  h.record("problem/fixed-chunks", ok, "B*NT ids, tail, default scale");

  int rejected = 0;
  for (auto mutate : {+[](Problem &q) { q.HV = 3; },
                      +[](Problem &q) { q.chunkSize = 48; },
                      +[](Problem &q) { q.B = 2; },
                      +[](Problem &q) { q.cuSeqlens.back() = 299; }}) {
    Problem q = p;
    mutate(q);
    try {
      q.validate();
    } catch (const std::invalid_argument &) {
      ++rejected;
    }
  }
  h.record("problem/validate", rejected == 4,
           std::to_string(rejected) + "/4 malformed problems rejected");
}

void preprocessTests(Harness &h) {
  Rng rng(7);
  std::vector<double> x = randomNormal(rng, 6 * 20);
  std::vector<double> y = l2normRows(x, 20);
  double worst = 0.0;
  for (int r = 0; r < 6; ++r) {
    double sx = 0.0, sy = 0.0;
    for (int d = 0; d < 20; ++d) {
      sx += x[r * 20 + d] * x[r * 20 + d];
      sy += y[r * 20 + d] * y[r * 20 + d];
    }
    worst = std::max(worst, std::fabs(sy - sx / (sx + kL2NormEps)));
  }
  h.record("preprocess/l2norm", worst < 1e-15,
           "sum y^2 = s/(s+1e-6), err " + sci(worst));

  std::vector<double> raw{-3.0, 0.0, 2.5};
  std::vector<double> b1 = betaSigmoid(raw), b2 = betaSigmoid(raw, true);
  bool ok = b1[1] == 0.5 && b2[1] == 1.0 &&
            std::fabs(b1[2] - 1.0 / (1.0 + std::exp(-2.5))) < 1e-16 &&
            b2[0] == 2.0 * b1[0];
  h.record("preprocess/beta-sigmoid", ok, "sigmoid, x2 with neg eigval");
}

void metricTests(Harness &h) {
  std::vector<double> ref{3.0, -4.0}, out{3.0, -4.0 + 1e-3};
  ErrorStats s = compareTensors(out, ref);
  double want = std::sqrt(0.5e-6) / (std::sqrt(12.5) + 1e-8);
  bool ok = std::fabs(s.relRms - want) < 1e-15 &&
            std::fabs(s.maxAbs - 1e-3) < 1e-15 && s.finite &&
            s.passes(1e-3) && !s.passes(1e-4);
  std::vector<double> bad{3.0, NAN};
  ErrorStats n = compareTensors(bad, ref);
  ok &= !n.finite && !n.passes(1.0) && !allFinite(bad) &&
        !compareTensors(std::vector<double>{1.0}, ref).passes(1.0);
  h.record("metric", ok, "rms ratio, max abs, NaN detection");
}

void rngTests(Harness &h) {
  Rng a(42), b(42);
  bool same = true;
  for (int i = 0; i < 100; ++i)
    same &= a.next() == b.next();
  Rng r(1);
  std::vector<double> n = randomNormal(r, 20000);
  double mean = 0.0, var = 0.0;
  for (double e : n)
    mean += e / n.size();
  for (double e : n)
    var += (e - mean) * (e - mean) / n.size();
  std::vector<double> u = randomUniform(r, 1000);
  bool inRange = true;
  for (double e : u)
    inRange &= e >= 0.0 && e < 1.0;
  std::vector<double> g = randomLogsigmoidGate(r, 1000, 1.0);
  bool neg = true;
  for (double e : g)
    neg &= e < 0.0;
  // discard(n) continues the stream as n calls of next() would.
  Rng drawn(5), skipped(5);
  for (int i = 0; i < 37; ++i)
    drawn.next();
  skipped.normal(); // leaves a spare, which discard drops
  skipped.discard(35);
  bool discards = drawn.next() == skipped.next() &&
                  drawn.normal() == skipped.normal();
  bool ok = same && std::fabs(mean) < 0.03 && std::fabs(var - 1.0) < 0.05 &&
            inRange && neg && discards;
  h.record("rng", ok,
           "deterministic; discard; normal mean " + sci(mean) + " var " +
               sci(var));
}

} // namespace

void runMiscTests(Harness &h) {
  problemTests(h);
  preprocessTests(h);
  metricTests(h);
  rngTests(h);
}

} // namespace kda::ref::test
