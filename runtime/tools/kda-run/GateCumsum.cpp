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

#include "Gates.h"
#include "RandomStream.h"
#include "Setup.h"
#include "StageRunner.h"

#include "kda/Reference/Reference.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kda::run {

namespace {

/// The arguments of a kda.gate_cumsum bundle, by manifest name.
enum Arg { Gin, Gout, ALog, DtBias };

/// kda.gate_cumsum: the chunk-local cumsum of (activated) gates.
class GateCumsumRunner : public StageRunner {
  bool setUp(const rt::Manifest &m, std::string &error) override;
  void makeInputs(Tensors &args) override;
  void compareOutputs(const Tensors &args, Table &outputs) override;

  BundleGate gate;
};

bool GateCumsumRunner::setUp(const rt::Manifest &m, std::string &error) {
  findArguments(m, {"g", "G", "a_log", "dt_bias"});
  if (!requireArguments("gate_cumsum", {Gin, Gout}, error))
    return false;
  const rt::ArgSpec &g = m.args[arg[Gin]];
  const rt::ArgSpec &G = m.args[arg[Gout]];
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
  if (!checkDtypeFlag(opt, g.dtype, "input dtype", "g", error))
    return false;
  // B, T and HV from the flags, checked against static dims; K from the
  // bundle.
  if (!checkStaticDim(g, 0, opt.batch, "--batch", "static batch size", error) ||
      !checkStaticDim(g, 1, opt.seqLen, "--seq-len", "static token count",
                      error) ||
      !checkStaticDim(g, 2, opt.valueHeads, "--value-heads", "HV", error))
    return false;
  takeFlagSizes();
  int64_t keyValue;
  if (parseKeyInt(m.key("HV"), keyValue) && keyValue != HV) {
    error = "--value-heads " + std::to_string(HV) +
            " does not match the bundle's HV " + std::to_string(keyValue);
    return false;
  }
  if (!bindLastDim(m, "g", "K", K, error) || !checkHeadGroups(H, HV, error))
    return false;
  if (const std::string *c = m.key("chunk")) {
    if (!parseKeyInt(c, BT) || (BT != 16 && BT != 32 && BT != 64)) {
      error = "the bundle's key chunk=" + *c + " is not 16, 32 or 64";
      return false;
    }
  }
  if (!gate.readMode(m)) {
    error = "the bundle's key gate=" + gate.name +
            " is not precomputed, softplus or lower_bound";
    return false;
  }
  if (const std::string *lb = m.key("lower_bound")) {
    if (!isNumber(*lb)) {
      error = "the bundle's key lower_bound=" + *lb + " is not a number";
      return false;
    }
    gate.lowerBound = std::strtod(lb->c_str(), nullptr);
  }
  gate.aLogArg = arg[ALog];
  gate.dtBiasArg = arg[DtBias];
  if (!gate.checkFlags(opt, error) || !checkCuSeqlens(opt, m, B, T, error))
    return false;

  // Every argument's shape.
  if (!sizeAll(m, {"B", "T", "HV", "H", "K"}, error))
    return false;
  std::vector<int64_t> bthk = {B, T, HV, K};
  if (argShapes[arg[Gin]] != bthk || argShapes[arg[Gout]] != bthk) {
    error = "'g' and 'G' must both be [B,T,HV,K]";
    return false;
  }
  if (has(ALog) && argShapes[arg[ALog]] != std::vector<int64_t>{HV}) {
    error = "the bundle's 'a_log' must be [HV]";
    return false;
  }
  if (has(DtBias) && argShapes[arg[DtBias]] != std::vector<int64_t>{HV, K} &&
      argShapes[arg[DtBias]] != std::vector<int64_t>{HV * K}) {
    error = "the bundle's 'dt_bias' must be [HV,K] or [HV*K]";
    return false;
  }
  pickPairs(HV);
  injectAtMiddleRow(arg[Gout], K);

  char number[32];
  std::snprintf(number, sizeof number, "%g", gate.lowerBound);
  description =
      sizesText() + " chunk=" + std::to_string(BT) + " gate=" + gate.name +
      (gate.mode == ref::GateMode::LowerBound ? "(" + std::string(number) + ")"
                                              : std::string()) +
      " dtype=" + rt::dtypeName(g.dtype) + cuSeqlensText() +
      inputOptionsText(opt);
  return true;
}

void GateCumsumRunner::makeInputs(Tensors &args) {
  // The generator's stream: g, then the mask (precomputed gates) or A_log
  // and dt_bias (in-kernel gates); each part drawn in parallel pieces.
  RandomStream stream(opt.seed);
  gate.draw(opt, stream, args[arg[Gin]], args);
}

void GateCumsumRunner::compareOutputs(const Tensors &args, Table &outputs) {
  const HostTensor &out = args[arg[Gout]];
  OutputStats &st = outputs.emplace_back(scanOutput("G", 1e-5, out));
  if (!st.compared)
    return;
  std::vector<double> aLog, dtBias;
  for (size_t index : pairs.checked) {
    const HeadPair &pair = pairs.all[index];
    const int64_t nu = pair.head, begin = seqs[pair.seq].begin,
                  len = seqs[pair.seq].length();
    ref::Problem p = pairProblem(len, K, 1, BT);
    ref::GateOptions go = gate.headOptions(args, nu, K, aLog, dtBias);
    std::vector<double> slice =
        gatherHead(args[arg[Gin]], begin, len, nu, HV, K);
    std::vector<double> expected = ref::gateCumsum(p, slice, go);
    for (int64_t r = 0; r < len; ++r)
      for (int64_t d = 0; d < K; ++d) {
        double o = out.get(((begin + r) * HV + nu) * K + d);
        if (std::isfinite(o))
          st.add(o, expected[r * K + d]);
      }
  }
}

} // namespace

std::unique_ptr<ProgramRunner> makeGateCumsumRunner() {
  return std::make_unique<GateCumsumRunner>();
}

} // namespace kda::run
