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
// The kda function must consist of one stage op; each kind of program has
// its own checker (GateCumsum.cpp, InterSolve.cpp).
//
//===----------------------------------------------------------------------===//

#include "CpuRun.h"

#include "kda/InitAllKDA.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string>
    inputFile(cl::Positional, cl::desc("<kda program .mlir>"), cl::Required);
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
static cl::opt<std::string>
    entryOpt("entry", cl::desc("name of the kda function"), cl::init(""));

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
    return ::kda::fail(errorMessage);
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
    return ::kda::fail(entryOpt.empty()
                           ? "no function with kda ops in '" + inputFile + "'"
                           : "no kda function named '" + entryOpt + "'");

  ::kda::RunOptions options;
  options.inputFile = inputFile;
  options.batch = batchOpt;
  options.seqLen = seqLenOpt;
  options.hasCuSeqlens = cuSeqlensOpt.getNumOccurrences() > 0;
  options.cuSeqlens = cuSeqlensOpt;
  options.seed = seedOpt;
  options.maskP = maskPOpt;
  options.gateNorm = gateNormOpt;
  options.injectError = injectErrorOpt;

  // One stage op, then the return.
  Block &body = entry.getBody().front();
  Operation *stage = &body.front();
  if (isa<func::ReturnOp>(stage->getNextNode())) {
    if (auto gate = dyn_cast<mlir::kda::GateCumsumOp>(stage))
      return ::kda::runGateCumsum(*module, entry, gate, options);
    if (auto solve = dyn_cast<mlir::kda::InterSolveOp>(stage))
      return ::kda::runInterSolve(*module, entry, solve, options);
  }
  return ::kda::fail("only functions made of a single kda.gate_cumsum or "
                     "kda.inter_solve can be checked on the CPU so far");
}
