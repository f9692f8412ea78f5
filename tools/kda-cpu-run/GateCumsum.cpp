//===- GateCumsum.cpp - kda-cpu-run for kda.gate_cumsum programs ----------===//
//
// Random gates made like fla's tests (logsigmoid(randn) / gate_norm, masked
// to -1000 with --mask-p; randn raw gates, A_log and dt_bias for in-kernel
// activations), rounded to the program's dtypes; G is compared with the
// float64 reference.
//
//===----------------------------------------------------------------------===//

#include "CpuRun.h"

#include "kda/Reference/Gate.h"
#include "kda/Reference/Random.h"

#include <cmath>
#include <cstdio>
#include <memory>

using namespace mlir;
using namespace ::kda;

int ::kda::runGateCumsum(ModuleOp module, func::FuncOp entry,
                         mlir::kda::GateCumsumOp gate,
                         const RunOptions &options) {
  // Problem sizes.
  ref::Problem problem;
  auto gType = cast<RankedTensorType>(gate.getG().getType());
  if (int rc =
          setupTokens(options, gType, "g", bool(gate.getCuSeqlens()), problem))
    return rc;
  problem.HV = problem.H = gType.getDimSize(2);
  problem.K = problem.V = gType.getDimSize(3);
  problem.chunkSize = gate.getChunkSize();
  if (int rc = checkProblem(problem, "B*T*HV*K",
                            {problem.B, problem.T, problem.HV, problem.K}))
    return rc;

  // Inputs, made like fla's tests, rounded to the program's dtypes.
  ElementKind gKind;
  if (!getElementKind(gType.getElementType(), gKind))
    return fail("unsupported element type of 'g'");
  ref::Rng rng(options.seed);
  ref::GateOptions gateOptions;
  std::vector<double> g;
  std::vector<double> aLog, dtBias;
  switch (gate.getGateMode()) {
  case mlir::kda::GateMode::precomputed:
    gateOptions.mode = ref::GateMode::Precomputed;
    g = ref::randomLogsigmoidGate(rng, problem.gateSize(), options.gateNorm);
    ref::maskWithProbability(rng, g, options.maskP, -1000.0);
    break;
  case mlir::kda::GateMode::softplus:
  case mlir::kda::GateMode::lower_bound:
    gateOptions.mode = gate.getGateMode() == mlir::kda::GateMode::softplus
                           ? ref::GateMode::Softplus
                           : ref::GateMode::LowerBound;
    if (gate.getLowerBound())
      gateOptions.lowerBound = gate.getLowerBound()->convertToDouble();
    g = ref::randomNormal(rng, problem.gateSize());
    break;
  }
  for (double &x : g)
    x = roundTo(gKind, x);

  HostTensor gIn(gKind, {problem.B, problem.T, problem.HV, problem.K});
  gIn.fill(g);
  HostTensor gOut(ElementKind::F32,
                  {problem.B, problem.T, problem.HV, problem.K});
  gOut.fillAll(std::nan(""));
  std::vector<HostTensor *> args{&gIn};
  std::vector<std::unique_ptr<HostTensor>> owned;
  if (gate.getALog()) {
    aLog = ref::randomNormal(rng, problem.HV);
    for (double &x : aLog)
      x = roundTo(ElementKind::F32, x);
    owned.push_back(std::make_unique<HostTensor>(
        ElementKind::F32, std::vector<int64_t>{problem.HV}));
    owned.back()->fill(aLog);
    args.push_back(owned.back().get());
    gateOptions.aLog = &aLog;
  }
  if (gate.getDtBias()) {
    dtBias = ref::randomNormal(rng, problem.HV * problem.K);
    for (double &x : dtBias)
      x = roundTo(ElementKind::F32, x);
    auto shape = cast<RankedTensorType>(gate.getDtBias().getType()).getShape();
    owned.push_back(std::make_unique<HostTensor>(
        ElementKind::F32, std::vector<int64_t>(shape.begin(), shape.end())));
    owned.back()->fill(dtBias);
    args.push_back(owned.back().get());
    gateOptions.dtBias = &dtBias;
  }
  if (gate.getCuSeqlens()) {
    int64_t n = static_cast<int64_t>(problem.cuSeqlens.size());
    owned.push_back(std::make_unique<HostTensor>(ElementKind::I64,
                                                 std::vector<int64_t>{n}));
    owned.back()->fill(std::vector<double>(problem.cuSeqlens.begin(),
                                           problem.cuSeqlens.end()));
    args.push_back(owned.back().get());
  }
  args.push_back(&gOut);

  std::string name = entry.getName().str();
  if (int rc = compileAndRun(module, entry, options, args))
    return rc;

  // Compare with the float64 reference.
  std::vector<double> ref = ref::gateCumsum(problem, g, gateOptions);
  std::vector<double> out = gOut.read();
  if (options.injectError && !out.empty())
    out[out.size() / 2] += 1.0;
  std::printf(
      "kda-cpu-run: %s (kda.gate_cumsum) B=%lld T=%lld HV=%lld K=%lld "
      "chunk=%lld%s seed=%llu\n",
      name.c_str(), (long long)problem.B, (long long)problem.T,
      (long long)problem.HV, (long long)problem.K, (long long)problem.chunkSize,
      problem.isVarlen() ? (" cu_seqlens=" + options.cuSeqlens).c_str() : "",
      (unsigned long long)options.seed);
  // fp32 sums of fp32 inputs over at most 64 rows: ~1e-7 relative.
  return report({compareOutput("G", out, ref, nullptr, 1e-5)});
}
