//===- ChunkTests.cpp - chunked stages vs the per-token recurrence --------===//

#include "StageChecks.h"
#include "Tests.h"

#include "kda/Reference/Reference.h"

#include <algorithm>
#include <cmath>

namespace kda::ref::test {
namespace {

/// Relative RMS tolerance of the chunked formulas against the recurrence.
constexpr double kTol = 1e-12;

/// How a case draws its gate.
enum class GateKind {
  /// logsigmoid(randn), with 10% of elements set to 0.
  LogSigmoidZeros,
  /// logsigmoid(randn), with 10% of elements set to -30.
  LogSigmoidMinus30,
  /// logsigmoid(randn), with 10% of elements set to -1000.
  LogSigmoidMinus1000,
  /// Raw randn through the softplus activation (A_log, dt_bias ~ randn).
  Softplus,
  /// Raw randn through the lower-bound activation (lb = -5).
  LowerBound,
  /// Lower-bound activation without A_log (factor 1) or dt_bias.
  LowerBoundNoParams,
};

const char *gateName(GateKind g) {
  switch (g) {
  case GateKind::LogSigmoidZeros:
    return "logsig,0@10%";
  case GateKind::LogSigmoidMinus30:
    return "logsig,-30@10%";
  case GateKind::LogSigmoidMinus1000:
    return "logsig,-1000@10%";
  case GateKind::Softplus:
    return "softplus";
  case GateKind::LowerBound:
    return "lower-bound";
  case GateKind::LowerBoundNoParams:
    return "lower-bound,no-A_log";
  }
  return "?";
}

struct CaseSpec {
  int64_t B = 2, T = 64, H = 2, HV = 4, K = 5, V = 3, chunk = 64;
  std::vector<int64_t> cu;
  bool h0 = true;
  StateLayout layout = StateLayout::KV;
  GateKind gate = GateKind::LogSigmoidMinus30;
  bool betaSigmoidRaw = false;
  bool negEig = false;
};

std::string caseName(const CaseSpec &s) {
  std::string n = "chunk/";
  if (s.cu.empty()) {
    n += "B" + std::to_string(s.B) + "T" + std::to_string(s.T);
  } else {
    n += "cu";
    for (int64_t c : s.cu)
      n += "-" + std::to_string(c);
  }
  n += "/bt" + std::to_string(s.chunk) + "/H" + std::to_string(s.H) + "HV" +
       std::to_string(s.HV) + "K" + std::to_string(s.K) + "V" +
       std::to_string(s.V) + (s.h0 ? "/h0" : "/no-h0") +
       (s.layout == StateLayout::VK ? "/vk" : "/kv") + "/" + gateName(s.gate);
  if (s.betaSigmoidRaw)
    n += s.negEig ? "/beta=2sig" : "/beta=sig";
  return n;
}

/// Inputs of one case, drawn like fla's tests.
struct Inputs {
  std::vector<double> q, k, v, g, beta, h0, aLog, dtBias;
  GateOptions opt;
};

Inputs drawInputs(const Problem &p, const CaseSpec &s, Rng &rng) {
  Inputs in;
  in.q = l2normRows(randomUniform(rng, p.qkSize()), p.K);
  in.k = l2normRows(randomNormal(rng, p.qkSize()), p.K);
  in.v = randomUniform(rng, p.valueSize());
  if (s.betaSigmoidRaw)
    in.beta = betaSigmoid(randomNormal(rng, p.betaSize()), s.negEig);
  else
    in.beta = randomSigmoidNormal(rng, p.betaSize());
  if (s.h0)
    in.h0 = randomNormal(rng, p.stateSize());
  in.aLog = randomNormal(rng, p.HV);
  in.dtBias = randomNormal(rng, p.HV * p.K);
  switch (s.gate) {
  case GateKind::LogSigmoidZeros:
  case GateKind::LogSigmoidMinus30:
  case GateKind::LogSigmoidMinus1000: {
    in.g = randomLogsigmoidGate(rng, p.gateSize(), 1.0);
    double hard = s.gate == GateKind::LogSigmoidZeros     ? 0.0
                  : s.gate == GateKind::LogSigmoidMinus30 ? -30.0
                                                          : -1000.0;
    maskWithProbability(rng, in.g, 0.1, hard);
    in.opt.mode = GateMode::Precomputed;
    break;
  }
  case GateKind::Softplus:
    in.g = randomNormal(rng, p.gateSize());
    in.opt = {GateMode::Softplus, &in.aLog, &in.dtBias, -5.0};
    break;
  case GateKind::LowerBound:
    in.g = randomNormal(rng, p.gateSize());
    in.opt = {GateMode::LowerBound, &in.aLog, &in.dtBias, -5.0};
    break;
  case GateKind::LowerBoundNoParams:
    in.g = randomNormal(rng, p.gateSize());
    in.opt = {GateMode::LowerBound, nullptr, nullptr, -5.0};
    break;
  }
  return in;
}

/// Akkd must equal the 16x16 diagonal blocks of Akk, column-shifted.
double akkdMismatch(const Problem &p, const std::vector<double> &Akkd,
                    const std::vector<double> &Akk) {
  double worst = 0.0;
  for (const Chunk &c : p.chunks())
    for (int64_t i = c.begin; i < c.end; ++i)
      for (int64_t nu = 0; nu < p.HV; ++nu) {
        const int64_t s0 = subChunkStart(c, i);
        for (int64_t jj = 0; jj < kSubChunk; ++jj) {
          const int64_t j = s0 + jj;
          double want = j < i ? Akk[at3(i, nu, j - c.begin, p.HV,
                                        p.chunkSize)]
                              : 0.0;
          worst = std::max(
              worst, std::fabs(Akkd[at3(i, nu, jj, p.HV, kSubChunk)] - want));
        }
      }
  return worst;
}

void runCase(Harness &h, const CaseSpec &s, Rng &rng) {
  Problem p;
  p.B = s.B;
  p.T = s.T;
  p.H = s.H;
  p.HV = s.HV;
  p.K = s.K;
  p.V = s.V;
  p.chunkSize = s.chunk;
  p.cuSeqlens = s.cu;
  p.stateLayout = s.layout;
  p.validate();
  const std::string name = caseName(s);
  Inputs in = drawInputs(p, s, rng);
  const std::vector<double> *h0 = s.h0 ? &in.h0 : nullptr;

  std::vector<double> gamma = recurrenceGate(p, in.g, in.opt);
  ForwardResult ref = recurrentForward(p, in.q, in.k, in.v, gamma, in.beta, h0);
  std::vector<double> G = gateCumsum(p, in.g, in.opt);
  ChunkedForward f = chunkedForward(p, in.q, in.k, in.v, G, in.beta, h0);

  ErrorStats so = compareTensors(f.o, ref.o);
  ErrorStats sh = compareTensors(f.finalState, ref.finalState);
  double residual = inverseResidual(p, f.M, f.Akk);
  ErrorStats sm = compareTensors(solveTrilBlocked(p, f.Akkd, f.Akk), f.M);
  double akkd = akkdMismatch(p, f.Akkd, f.Akk);
  double intra = intraStageError(p, in.q, in.k, gamma, in.beta, f);
  double hErr =
      chunkStateError(p, in.q, in.k, in.v, gamma, in.beta, h0, f.h);
  bool finite = allFinite(ref.o) && allFinite(ref.finalState) &&
                allFinite(f.o) && allFinite(f.finalState) && allFinite(f.h) &&
                allFinite(f.M) && allFinite(f.w) && allFinite(f.u);
  // The recurrent form (kda-fuse-recurrence) from the same M, Aqk and G.
  RecurrentOutputs rf =
      chunkRecurrence(p, decayApply(p, in.q, in.k, G), in.v, in.beta, f.M,
                      f.Aqk, h0);
  ErrorStats ro = compareTensors(rf.o, ref.o);
  ErrorStats rh = compareTensors(rf.finalState, ref.finalState);
  bool ok = finite && so.relRms <= kTol && sh.relRms <= kTol &&
            residual <= kTol && sm.relRms <= kTol && akkd == 0.0 &&
            intra <= kTol && hErr <= kTol && ro.relRms <= kTol &&
            rh.relRms <= kTol && allFinite(rf.o);
  h.record(name, ok,
           "o " + sci(so.relRms) + " ht " + sci(sh.relRms) + " |M(I+A)-I| " +
               sci(residual) + " blocked-M " + sci(sm.relRms) + " h " +
               sci(hErr) + " Aqk/Akk/kg " + sci(intra) + " recurrent o " +
               sci(ro.relRms) + " ht " + sci(rh.relRms) +
               (akkd == 0.0 ? "" : " Akkd-mismatch " + sci(akkd)) +
               (finite ? "" : " non-finite"));

  // The state-layout switch only transposes states: rerun in the other
  // layout and compare.
  if (s.h0) {
    Problem q = p;
    q.stateLayout =
        s.layout == StateLayout::KV ? StateLayout::VK : StateLayout::KV;
    std::vector<double> h0t = transposeStates(in.h0, p.K, p.V, s.layout);
    ChunkedForward ft = chunkedForward(q, in.q, in.k, in.v, G, in.beta, &h0t);
    ErrorStats lo = compareTensors(ft.o, f.o);
    ErrorStats lh = compareTensors(
        transposeStates(ft.finalState, p.K, p.V, q.stateLayout),
        f.finalState);
    ErrorStats lhh =
        compareTensors(transposeStates(ft.h, p.K, p.V, q.stateLayout), f.h);
    h.record(name + " layout-swap",
             lo.maxAbs == 0.0 && lh.maxAbs == 0.0 && lhh.maxAbs == 0.0,
             "o, h, ht identical up to transpose");
  }
}

std::vector<CaseSpec> allCases() {
  std::vector<CaseSpec> cases;
  // Fixed length: every T against both chunk sizes, h0 on/off, K/V not
  // multiples of 16, GVA.
  for (int64_t T : {1, 63, 64, 65, 150})
    for (int64_t chunk : {64, 32})
      for (bool h0 : {true, false}) {
        CaseSpec s;
        s.T = T;
        s.chunk = chunk;
        s.h0 = h0;
        cases.push_back(s);
      }
  // K = 20, -1000 gates, vk layout.
  for (int64_t chunk : {64, 32}) {
    CaseSpec s;
    s.T = 150;
    s.K = 20;
    s.V = 7;
    s.chunk = chunk;
    s.gate = GateKind::LogSigmoidMinus1000;
    cases.push_back(s);
    s.layout = StateLayout::VK;
    s.gate = GateKind::LogSigmoidZeros;
    cases.push_back(s);
  }
  // Varlen.
  for (std::vector<int64_t> cu : {std::vector<int64_t>{0, 1, 64, 65, 300},
                                  std::vector<int64_t>{0, 15, 100, 300}})
    for (int64_t chunk : {64, 32})
      for (GateKind gate :
           {GateKind::LogSigmoidMinus30, GateKind::LogSigmoidMinus1000}) {
        CaseSpec s;
        s.B = 1;
        s.T = cu.back();
        s.cu = cu;
        s.chunk = chunk;
        s.gate = gate;
        s.K = chunk == 64 ? 5 : 20;
        s.h0 = gate == GateKind::LogSigmoidMinus30;
        s.layout = chunk == 32 ? StateLayout::VK : StateLayout::KV;
        cases.push_back(s);
      }
  // Every in-kernel gate mode, fixed and varlen; beta through the sigmoid.
  for (GateKind gate : {GateKind::Softplus, GateKind::LowerBound,
                        GateKind::LowerBoundNoParams}) {
    CaseSpec s;
    s.T = 150;
    s.K = 20;
    s.gate = gate;
    s.betaSigmoidRaw = true;
    s.negEig = gate == GateKind::LowerBound;
    cases.push_back(s);
    s.B = 1;
    s.T = 300;
    s.cu = {0, 15, 100, 300};
    s.chunk = 32;
    cases.push_back(s);
  }
  // No GVA, and GVA with 4 value heads per q/k head; a varlen sequence of
  // length 0; a wide head.
  {
    CaseSpec s;
    s.H = 1;
    s.HV = 1;
    s.T = 130;
    cases.push_back(s);
    s.H = 1;
    s.HV = 4;
    s.gate = GateKind::LogSigmoidMinus1000;
    cases.push_back(s);
    CaseSpec e;
    e.B = 1;
    e.T = 100;
    e.cu = {0, 15, 15, 100};
    cases.push_back(e);
    CaseSpec w;
    w.B = 1;
    w.T = 130;
    w.K = 64;
    w.V = 64;
    w.H = 1;
    w.HV = 2;
    w.gate = GateKind::LowerBound;
    cases.push_back(w);
  }
  return cases;
}

} // namespace

void runChunkTests(Harness &h) {
  Rng rng(0xC4A11);
  for (const CaseSpec &s : allCases())
    runCase(h, s, rng);
}

} // namespace kda::ref::test
