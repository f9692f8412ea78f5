//===- kda-cpu-run.cpp - run a kda program on the CPU path and check it ---===//
//
// kda-cpu-run FILE [--batch B] [--seq-len T] [--cu-seqlens 0,a,...,T]
//                  [--seed S] [--mask-p P] [--gate-norm X] [--entry NAME]
//
// Lowers FILE with --kda-to-cpu-pipeline, JIT-compiles it, runs the kda
// function on random inputs made the way fla's tests make them, compares
// every output with the float64 reference, prints a table and a last line
// starting with PASS or FAIL, and exits non-zero on FAIL or any error.
//
//===----------------------------------------------------------------------===//

#include "HostTensor.h"

#include "kda/Dialect/KDA/KDAOps.h"
#include "kda/InitAllKDA.h"
#include "kda/Pipelines/Pipelines.h"
#include "kda/Reference/Reference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<kda program .mlir>"),
                                      cl::Required);
static cl::opt<int64_t> batchOpt("batch", cl::desc("batch size B"),
                                 cl::init(1));
static cl::opt<int64_t> seqLenOpt("seq-len", cl::desc("tokens T"),
                                  cl::init(128));
static cl::opt<std::string>
    cuSeqlensOpt("cu-seqlens",
                 cl::desc("packed sequence offsets 0,a,b,...,T (needs B=1)"),
                 cl::init(""));
static cl::opt<uint64_t> seedOpt("seed", cl::desc("random seed"), cl::init(0));
static cl::opt<double>
    maskPOpt("mask-p",
             cl::desc("probability of setting a precomputed gate to -1000"),
             cl::init(0.0));
static cl::opt<double> gateNormOpt("gate-norm",
                                   cl::desc("divisor of logsigmoid gates"),
                                   cl::init(1.0));
static cl::opt<bool> injectErrorOpt(
    "inject-error",
    cl::desc("add 1.0 to one output element before checking (tests that the "
             "checker catches a wrong result)"),
    cl::init(false));
static cl::opt<std::string> entryOpt("entry",
                                     cl::desc("name of the kda function"),
                                     cl::init(""));

namespace {

/// Prints a one-line error and returns a non-zero exit code.
int fail(const llvm::Twine &message) {
  llvm::errs() << "kda-cpu-run: error: " << message << "\n";
  return 1;
}

/// Parses "0,a,b" into offsets; returns false on malformed text.
bool parseOffsets(StringRef text, std::vector<int64_t> &out) {
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
bool resolveDim(int64_t typeDim, int64_t runtime, int64_t &out) {
  if (ShapedType::isDynamic(typeDim)) {
    out = runtime;
    return true;
  }
  out = typeDim;
  return typeDim == runtime;
}

/// Runs `kernelName` (a `_mlir_ciface_` entry) with the given tensors.
LogicalResult invoke(ExecutionEngine &engine, StringRef name,
                     std::vector<::kda::HostTensor *> tensors) {
  std::vector<void *> descs;
  for (auto *t : tensors)
    descs.push_back(t->descriptor());
  SmallVector<void *> packed;
  for (void *&d : descs)
    packed.push_back(&d);
  llvm::Error err = engine.invokePacked(("_mlir_ciface_" + name).str(), packed);
  if (err) {
    llvm::errs() << "kda-cpu-run: error: " << llvm::toString(std::move(err))
                 << "\n";
    return failure();
  }
  return success();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "kda CPU-path runner and checker\n");
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  DialectRegistry registry;
  mlir::kda::registerAllKDADialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string errorMessage;
  auto file = openInputFile(inputFile, &errorMessage);
  if (!file)
    return fail(errorMessage);
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  // Diagnostics (parse errors, verifier errors, pipeline failures) are
  // printed with their location and source line.
  SourceMgrDiagnosticHandler diagnostics(*sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return 1; // the parser printed a located diagnostic

  // The kda function to run.
  func::FuncOp entry;
  for (auto func : module->getOps<func::FuncOp>()) {
    if (!entryOpt.empty() && func.getName() != entryOpt)
      continue;
    bool hasKDA = false;
    func.walk([&](Operation *op) {
      hasKDA |= isa<mlir::kda::KDADialect>(op->getDialect());
    });
    if (hasKDA) {
      entry = func;
      break;
    }
  }
  if (!entry)
    return fail(entryOpt.empty()
                    ? "no function with kda ops in '" + inputFile + "'"
                    : "no kda function named '" + entryOpt + "'");
  Block &body = entry.getBody().front();
  auto gate = dyn_cast<mlir::kda::GateCumsumOp>(&body.front());
  if (!gate || !isa<func::ReturnOp>(gate->getNextNode()))
    return fail("only functions made of a single kda.gate_cumsum can be "
                "checked on the CPU so far");

  // Problem sizes.
  ::kda::ref::Problem problem;
  if (batchOpt < 1 || seqLenOpt < 1)
    return fail("--batch and --seq-len must be positive");
  auto gType = cast<RankedTensorType>(gate.getG().getType());
  if (cuSeqlensOpt.getNumOccurrences() && batchOpt != 1)
    return fail("--cu-seqlens needs --batch 1 (sequences are packed along T)");
  if (!resolveDim(gType.getDimSize(0), batchOpt, problem.B) ||
      !resolveDim(gType.getDimSize(1), seqLenOpt, problem.T))
    return fail("--batch/--seq-len disagree with the static shape of 'g'");
  problem.HV = problem.H = gType.getDimSize(2);
  problem.K = problem.V = gType.getDimSize(3);
  problem.chunkSize = gate.getChunkSize();
  if (cuSeqlensOpt.getNumOccurrences()) {
    if (!parseOffsets(cuSeqlensOpt, problem.cuSeqlens))
      return fail("--cu-seqlens must be a comma-separated list of integers, "
                  "got '" + cuSeqlensOpt + "'");
    const std::vector<int64_t> &cu = problem.cuSeqlens;
    if (cu.size() < 2)
      return fail("--cu-seqlens needs at least two offsets (one sequence)");
    if (cu.front() != 0)
      return fail("--cu-seqlens must start at 0, got " +
                  Twine(cu.front()));
    for (size_t i = 1; i < cu.size(); ++i)
      if (cu[i] < cu[i - 1])
        return fail("--cu-seqlens must not decrease: " + Twine(cu[i]) +
                    " follows " + Twine(cu[i - 1]));
    if (cu.back() != problem.T)
      return fail("--cu-seqlens must end at T = " + Twine(problem.T) +
                  ", got " + Twine(cu.back()));
  }
  if (!gate.getCuSeqlens() != problem.cuSeqlens.empty())
    return fail(gate.getCuSeqlens()
                    ? "the program takes cu_seqlens: pass --cu-seqlens"
                    : "the program is not varlen: drop --cu-seqlens");
  if (const char *why = problem.checkError(); why && *why)
    return fail(why);
  // The CPU path is for small problems: keep every tensor under 2^31
  // elements (and the product free of overflow).
  {
    const int64_t limit = int64_t(1) << 31;
    int64_t elements = 1;
    for (int64_t d : {problem.B, problem.T, problem.HV, problem.K}) {
      if (d > limit / elements)
        return fail("problem too large for the CPU path: B*T*HV*K = " +
                    Twine(problem.B) + "*" + Twine(problem.T) + "*" +
                    Twine(problem.HV) + "*" + Twine(problem.K) +
                    " exceeds 2^31 elements");
      elements *= d;
    }
  }

  // Inputs, made like fla's tests, rounded to the program's dtypes.
  ::kda::ElementKind gKind;
  if (!::kda::getElementKind(gType.getElementType(), gKind))
    return fail("unsupported element type of 'g'");
  ::kda::ref::Rng rng(seedOpt);
  ::kda::ref::GateOptions gateOptions;
  std::vector<double> g;
  std::vector<double> aLog, dtBias;
  switch (gate.getGateMode()) {
  case mlir::kda::GateMode::precomputed:
    gateOptions.mode = ::kda::ref::GateMode::Precomputed;
    g = ::kda::ref::randomLogsigmoidGate(rng, problem.gateSize(), gateNormOpt);
    ::kda::ref::maskWithProbability(rng, g, maskPOpt, -1000.0);
    break;
  case mlir::kda::GateMode::softplus:
  case mlir::kda::GateMode::lower_bound:
    gateOptions.mode = gate.getGateMode() == mlir::kda::GateMode::softplus
                           ? ::kda::ref::GateMode::Softplus
                           : ::kda::ref::GateMode::LowerBound;
    if (gate.getLowerBound())
      gateOptions.lowerBound = gate.getLowerBound()->convertToDouble();
    g = ::kda::ref::randomNormal(rng, problem.gateSize());
    break;
  }
  for (double &x : g)
    x = ::kda::roundTo(gKind, x);

  ::kda::HostTensor gIn(gKind, {problem.B, problem.T, problem.HV, problem.K});
  gIn.fill(g);
  ::kda::HostTensor gOut(::kda::ElementKind::F32,
                       {problem.B, problem.T, problem.HV, problem.K});
  gOut.fillAll(std::nan(""));
  std::vector<::kda::HostTensor *> args{&gIn};
  std::vector<std::unique_ptr<::kda::HostTensor>> owned;
  if (gate.getALog()) {
    aLog = ::kda::ref::randomNormal(rng, problem.HV);
    for (double &x : aLog)
      x = ::kda::roundTo(::kda::ElementKind::F32, x);
    owned.push_back(std::make_unique<::kda::HostTensor>(
        ::kda::ElementKind::F32, std::vector<int64_t>{problem.HV}));
    owned.back()->fill(aLog);
    args.push_back(owned.back().get());
    gateOptions.aLog = &aLog;
  }
  if (gate.getDtBias()) {
    dtBias = ::kda::ref::randomNormal(rng, problem.HV * problem.K);
    for (double &x : dtBias)
      x = ::kda::roundTo(::kda::ElementKind::F32, x);
    auto shape = cast<RankedTensorType>(gate.getDtBias().getType()).getShape();
    owned.push_back(std::make_unique<::kda::HostTensor>(
        ::kda::ElementKind::F32, std::vector<int64_t>(shape.begin(), shape.end())));
    owned.back()->fill(dtBias);
    args.push_back(owned.back().get());
    gateOptions.dtBias = &dtBias;
  }
  if (gate.getCuSeqlens()) {
    int64_t n = static_cast<int64_t>(problem.cuSeqlens.size());
    owned.push_back(std::make_unique<::kda::HostTensor>(
        ::kda::ElementKind::I64, std::vector<int64_t>{n}));
    owned.back()->fill(std::vector<double>(problem.cuSeqlens.begin(),
                                           problem.cuSeqlens.end()));
    args.push_back(owned.back().get());
  }
  args.push_back(&gOut);

  // Lower and JIT.
  std::string name = entry.getName().str();
  PassManager pm(&context);
  mlir::kda::buildKDAToCPUPipeline(pm);
  if (failed(pm.run(*module)))
    return fail("the CPU pipeline failed on '" + inputFile + "'");
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = makeOptimizingTransformer(2, 0, nullptr);
  auto engine = ExecutionEngine::create(*module, engineOptions);
  if (!engine)
    return fail("JIT compilation failed: " + llvm::toString(engine.takeError()));
  (*engine)->initialize();
  if (failed(invoke(**engine, name, args)))
    return 1;

  // Compare with the float64 reference.
  std::vector<double> ref = ::kda::ref::gateCumsum(problem, g, gateOptions);
  std::vector<double> out = gOut.read();
  if (injectErrorOpt && !out.empty())
    out[out.size() / 2] += 1.0;
  int64_t unwritten = 0;
  for (size_t i = 0; i < out.size(); ++i)
    if (std::isnan(out[i]) && !std::isnan(ref[i]))
      ++unwritten;
  ::kda::ref::ErrorStats stats = ::kda::ref::compareTensors(out, ref);
  const double threshold = 1e-5;
  bool ok = unwritten == 0 && stats.finite && stats.relRms <= threshold;

  std::printf("kda-cpu-run: %s (kda.gate_cumsum) B=%lld T=%lld HV=%lld K=%lld "
              "chunk=%lld%s seed=%llu\n",
              name.c_str(), (long long)problem.B, (long long)problem.T,
              (long long)problem.HV, (long long)problem.K,
              (long long)problem.chunkSize,
              problem.isVarlen() ? (" cu_seqlens=" + cuSeqlensOpt).c_str() : "",
              (unsigned long long)seedOpt);
  std::printf("%-8s %10s %12s %12s %10s %10s\n", "output", "elements",
              "rms_ratio", "max_abs", "unwritten", "threshold");
  std::printf("%-8s %10lld %12.3e %12.3e %10lld %10.1e\n", "G",
              (long long)out.size(), stats.relRms, stats.maxAbs,
              (long long)unwritten, threshold);
  std::printf("%s worst rms_ratio=%.3e max_abs=%.3e\n", ok ? "PASS" : "FAIL",
              stats.relRms, stats.maxAbs);
  return ok ? 0 : 1;
}
