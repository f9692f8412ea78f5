//===- CpuRun.cpp - shared pieces of kda-cpu-run --------------------------===//

#include "CpuRun.h"

#include "kda/Pipelines/Pipelines.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace ::kda;

int ::kda::fail(const llvm::Twine &message) {
  llvm::errs() << "kda-cpu-run: error: " << message << "\n";
  return 1;
}

/// Parses "0,a,b" into offsets; returns false on malformed text.
static bool parseOffsets(StringRef text, std::vector<int64_t> &out) {
  SmallVector<StringRef> parts;
  text.split(parts, ',');
  for (StringRef p : parts) {
    int64_t v;
    if (p.trim().getAsInteger(10, v))
      return false;
    out.push_back(v);
  }
  return true;
}

/// Resolves a static-or-dynamic dimension against a runtime size.
static bool resolveDim(int64_t typeDim, int64_t runtime, int64_t &out) {
  if (ShapedType::isDynamic(typeDim)) {
    out = runtime;
    return true;
  }
  out = typeDim;
  return typeDim == runtime;
}

int ::kda::setupTokens(const RunOptions &options, RankedTensorType rows,
                       StringRef name, bool programIsVarlen,
                       ref::Problem &problem) {
  if (options.batch < 1 || options.seqLen < 1)
    return fail("--batch and --seq-len must be positive");
  if (options.hasCuSeqlens && options.batch != 1)
    return fail("--cu-seqlens needs --batch 1 (sequences are packed along T)");
  if (!resolveDim(rows.getDimSize(0), options.batch, problem.B) ||
      !resolveDim(rows.getDimSize(1), options.seqLen, problem.T))
    return fail("--batch/--seq-len disagree with the static shape of '" + name +
                "'");
  if (options.hasCuSeqlens) {
    if (!parseOffsets(options.cuSeqlens, problem.cuSeqlens))
      return fail("--cu-seqlens must be a comma-separated list of integers, "
                  "got '" +
                  options.cuSeqlens + "'");
    const std::vector<int64_t> &cu = problem.cuSeqlens;
    if (cu.size() < 2)
      return fail("--cu-seqlens needs at least two offsets (one sequence)");
    if (cu.front() != 0)
      return fail("--cu-seqlens must start at 0, got " + Twine(cu.front()));
    for (size_t i = 1; i < cu.size(); ++i)
      if (cu[i] < cu[i - 1])
        return fail("--cu-seqlens must not decrease: " + Twine(cu[i]) +
                    " follows " + Twine(cu[i - 1]));
    if (cu.back() != problem.T)
      return fail("--cu-seqlens must end at T = " + Twine(problem.T) +
                  ", got " + Twine(cu.back()));
  }
  if (programIsVarlen == problem.cuSeqlens.empty())
    return fail(programIsVarlen
                    ? "the program takes cu_seqlens: pass --cu-seqlens"
                    : "the program is not varlen: drop --cu-seqlens");
  return 0;
}

int ::kda::checkProblem(const ref::Problem &problem, StringRef what,
                        ArrayRef<int64_t> dims) {
  if (const char *why = problem.checkError(); why && *why)
    return fail(why);
  // The CPU path is for small problems: keep every tensor under 2^31
  // elements (and the product free of overflow).
  const int64_t limit = int64_t(1) << 31;
  int64_t elements = 1;
  for (int64_t d : dims) {
    if (d > limit / elements) {
      std::string sizes;
      for (auto [i, size] : llvm::enumerate(dims))
        sizes += (i ? "*" : "") + std::to_string(size);
      return fail("problem too large for the CPU path: " + what + " = " +
                  sizes + " exceeds 2^31 elements");
    }
    elements *= d;
  }
  return 0;
}

/// Returns true if `func` holds kda ops.
static bool isKDAFunction(func::FuncOp func) {
  bool found = false;
  func.walk([&](Operation *op) {
    found |= isa<mlir::kda::KDADialect>(op->getDialect());
  });
  return found;
}

int ::kda::compileAndRun(ModuleOp module, func::FuncOp entry,
                         const RunOptions &options,
                         const std::vector<HostTensor *> &tensors) {
  // Only the entry is compiled: other kda functions of the file (other
  // problem variants) would only cost compile time.
  std::string name = entry.getName().str();
  SmallVector<func::FuncOp> others;
  for (auto func : module.getOps<func::FuncOp>())
    if (func != entry && isKDAFunction(func))
      others.push_back(func);
  for (func::FuncOp func : others)
    func.erase();

  PassManager pm(module.getContext());
  mlir::kda::buildKDAToCPUPipeline(pm);
  if (failed(pm.run(module)))
    return fail("the CPU pipeline failed on '" + options.inputFile + "'");
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = makeOptimizingTransformer(2, 0, nullptr);
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return fail("JIT compilation failed: " +
                llvm::toString(engine.takeError()));
  (*engine)->initialize();

  std::vector<void *> descs;
  for (HostTensor *t : tensors)
    descs.push_back(t->descriptor());
  SmallVector<void *> packed;
  for (void *&d : descs)
    packed.push_back(&d);
  if (llvm::Error err = (*engine)->invokePacked("_mlir_ciface_" + name, packed))
    return fail(llvm::toString(std::move(err)));
  return 0;
}

namespace kda {
OutputCheck compareOutput(StringRef name, const std::vector<double> &out,
                          const std::vector<double> &ref,
                          const std::vector<int64_t> *where, double threshold) {
  OutputCheck check;
  check.name = name.str();
  check.threshold = threshold;
  std::vector<double> outPart, refPart;
  auto take = [&](size_t i) {
    outPart.push_back(out[i]);
    refPart.push_back(ref[i]);
    if (std::isnan(out[i]) && !std::isnan(ref[i]))
      ++check.unwritten;
  };
  if (!where)
    for (size_t i = 0; i < out.size(); ++i)
      take(i);
  else
    for (int64_t i : *where)
      take(static_cast<size_t>(i));
  check.elements = static_cast<int64_t>(outPart.size());
  check.stats = ref::compareTensors(outPart, refPart);
  return check;
}
} // namespace kda

int ::kda::report(const std::vector<OutputCheck> &checks) {
  std::printf("%-8s %10s %12s %12s %10s %10s\n", "output", "elements",
              "rms_ratio", "max_abs", "unwritten", "threshold");
  bool ok = true;
  double worstRms = 0.0, worstAbs = 0.0;
  for (const OutputCheck &c : checks) {
    std::printf("%-8s %10lld %12.3e %12.3e %10lld %10.1e\n", c.name.c_str(),
                (long long)c.elements, c.stats.relRms, c.stats.maxAbs,
                (long long)c.unwritten, c.threshold);
    ok &= c.ok();
    // A NaN error is the worst and stays so.
    auto worse = [](double x, double worst) {
      return !std::isnan(worst) && (std::isnan(x) || x > worst);
    };
    if (worse(c.stats.relRms, worstRms))
      worstRms = c.stats.relRms;
    if (worse(c.stats.maxAbs, worstAbs))
      worstAbs = c.stats.maxAbs;
  }
  std::printf("%s worst rms_ratio=%.3e max_abs=%.3e\n", ok ? "PASS" : "FAIL",
              worstRms, worstAbs);
  return ok ? 0 : 1;
}

int ::kda::argumentIndex(func::FuncOp entry, Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != &entry.getBody().front())
    return -1;
  return static_cast<int>(arg.getArgNumber());
}
