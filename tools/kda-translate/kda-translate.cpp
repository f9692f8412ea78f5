//===- kda-translate.cpp - kda programs to PTX ----------------------------===//
//
// kda-translate FILE --kda-to-ptx [--chip sm_90] [--max-registers N]
//               [--no-register-tiles] [--assign-register-layouts]
//               [--chunk-size N] [--fuse-recurrence] [--fuse-scan-output]
//               [--fuse-chunk-kernels [--fuse-preprocessing]]
//               [--exact-diagonal-factoring]
//               [--exact-diagonal-rows] [--approximate-sigmoid]
//               [--tuning-override K.KEY=VALUE]
//               [-o out.ptx]
//
// Without --chunk-size and the --fuse-* flags, a whole forward
// (kda.chunk_fwd) is built in the form the target tuning prefers
// (kda::preferredForwardForm): the recurrent two-kernel form at chunks of
// 16 where its chunk recurrence runs on registers (K from 65 to 128, 16-bit
// q, k and v), the staged form otherwise. Any of those flags gives exactly
// the form they name (--fuse-recurrence=false alone: the staged form).
//
//===----------------------------------------------------------------------===//

#include "kda/InitAllKDA.h"
#include "kda/Pipelines/Pipelines.h"
#include "kda/Target/BundleEmitter.h"
#include "kda/Target/PTXEmitter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;

static llvm::cl::opt<std::string>
    chipOption("chip", llvm::cl::desc("GPU architecture for --kda-to-ptx"),
               llvm::cl::init("sm_90"));
static llvm::cl::opt<std::string>
    featuresOption("ptx-features",
                   llvm::cl::desc("PTX features for --kda-to-ptx"),
                   llvm::cl::init("+ptx80"));
static llvm::cl::opt<std::string> toolkitOption(
    "cuda-toolkit",
    llvm::cl::desc("CUDA toolkit directory, for libdevice (default: "
                   "the first of CUDA_ROOT, CUDA_HOME, CUDA_PATH, the configured "
                   "toolkit and /usr/local/cuda that holds libdevice)"),
    llvm::cl::init(""));

static llvm::cl::opt<int64_t> maxRegistersOption(
    "max-registers",
    llvm::cl::desc("Register limit per thread of every kernel (PTX "
                   ".maxnreg, 1-255); default 0: ptxas decides"),
    llvm::cl::init(0));

static llvm::cl::opt<bool> noRegisterTilesOption(
    "no-register-tiles",
    llvm::cl::desc("Run every kernel on the shared-memory mapping: those "
                   "written with register layouts (#tile.dist) and those "
                   "the target's kernel tuning runs on registers (the seed "
                   "kernel, inter_solve) too"),
    llvm::cl::init(false));

static llvm::cl::opt<bool> assignLayoutsOption(
    "assign-register-layouts",
    llvm::cl::desc("Give every kernel that can run on registers #tile.dist "
                   "layouts (kda-assign-tile-layouts), then run it there"),
    llvm::cl::init(false));

static llvm::cl::opt<bool> registerRecurrencesOption(
    "register-recurrences",
    llvm::cl::desc("Run the recurrence kernels (the state scans, and the "
                   "chunk recurrence, which by default runs there only "
                   "where that was measured) on registers with assigned "
                   "layouts, the others (inter_solve too) on the "
                   "shared-memory mapping"),
    llvm::cl::init(false));

static llvm::cl::opt<bool> prefetchOption(
    "prefetch",
    llvm::cl::desc("On registers, load a loop's tiles one trip ahead in "
                   "every kernel: dot operands kept in shared memory into "
                   "buffers of two slots, register tiles as loop-carried "
                   "values"),
    llvm::cl::init(false));

static llvm::cl::opt<bool> warpShufflesOption(
    "warp-shuffles",
    llvm::cl::desc("On registers, move the elements of a layout change that "
                   "stays within each warp by shfl.sync.idx instead of "
                   "through shared memory between two barriers (off by "
                   "default: measured slower in the chunk recurrence)"),
    llvm::cl::init(false));

static llvm::cl::opt<bool> duplicateSmallOperandsOption(
    "duplicate-small-operands",
    llvm::cl::desc("On registers, compute a computed A operand of a "
                   "recurrence in every warp when its copies add up to less "
                   "than 8 KiB, instead of converting it through shared "
                   "memory (no barriers)"),
    llvm::cl::init(false));

static llvm::cl::opt<bool> scanLayoutsOption(
    "scan-layouts",
    llvm::cl::desc("On registers, give each scan (the gate's cumulative "
                   "sum) a layout whose warps do not split the scanned "
                   "dimension: no exchange between warps through shared "
                   "memory (on by default; --scan-layouts=false keeps the "
                   "coalesced layout of the loads)"),
    llvm::cl::init(true));

static llvm::cl::opt<kda::AddressHoisting> addressHoistingOption(
    "address-hoisting",
    llvm::cl::desc("Which kernels compute their global addresses as a "
                   "program base plus a per-access offset "
                   "(gpu-hoist-uniform-addresses)"),
    llvm::cl::init(kda::AddressHoisting::tuned),
    llvm::cl::values(
        clEnumValN(kda::AddressHoisting::tuned, "tuned",
                   "those the target's kernel tuning marks (default)"),
        clEnumValN(kda::AddressHoisting::all, "all", "every kernel"),
        clEnumValN(kda::AddressHoisting::none, "none", "none")));

static llvm::cl::opt<int64_t> chunkSizeOption(
    "chunk-size",
    llvm::cl::desc("Compute the forward in chunks of 16, 32 or 64 tokens, "
                   "whatever its chunk_size attribute says (0, the default, "
                   "keeps it)"),
    llvm::cl::init(0));

static llvm::cl::opt<bool> fuseRecurrenceOption(
    "fuse-recurrence",
    llvm::cl::desc("Run the forward's WY recompute, state scan and output "
                   "as a token-parallel kda.decay_apply and one "
                   "kda.chunk_recurrence (kda-fuse-recurrence): w, u, h and "
                   "v_new never reach memory"),
    llvm::cl::init(false));

static llvm::cl::opt<bool> fuseScanOutputOption(
    "fuse-scan-output",
    llvm::cl::desc("Compute the forward's output inside its state scan "
                   "(kda-fuse-scan-output): h and v_new never reach memory"),
    llvm::cl::init(false));

static llvm::cl::opt<bool> fuseChunkKernelsOption(
    "fuse-chunk-kernels",
    llvm::cl::desc("Run the forward's per-chunk stages that follow one "
                   "another (gate cumsum, diagonal blocks, solve, WY "
                   "recompute or decay_apply) as one kernel "
                   "(kda-fuse-tile-launches)"),
    llvm::cl::init(false));

static llvm::cl::opt<bool> fusePreprocessingOption(
    "fuse-preprocessing",
    llvm::cl::desc("With --fuse-chunk-kernels, run the forward's l2norm and "
                   "beta sigmoid in the fused per-chunk kernel too, on its "
                   "chunk programs (convert-kda-to-tile fuse-preprocessing)"),
    llvm::cl::init(false));

static llvm::cl::opt<bool> exactDiagonalFactoringOption(
    "exact-diagonal-factoring",
    llvm::cl::desc("Factor the exact path's diagonal decays (intra_diag) "
                   "through the sub-chunk's reference row, as tf32x3 dots "
                   "(S_qk at tf32 for 16-bit I/O), where the sub-chunk's "
                   "gate drop is at most 64 (log2): 32 exponentials per "
                   "column instead of 256"),
    llvm::cl::init(false));

static llvm::cl::opt<bool> exactDiagonalRowsOption(
    "exact-diagonal-rows",
    llvm::cl::desc("Form the exact path's pairwise decays (intra_diag) by "
                   "key rows, in 2-D tiles that the register mapping takes "
                   "(fla's formulation), over the lower triangle in halves "
                   "of 8 rows (also as the factored path's fallback)"),
    llvm::cl::init(false));

static llvm::cl::opt<bool> approximateSigmoidOption(
    "approximate-sigmoid",
    llvm::cl::desc("Compute the in-kernel gate's (lower_bound mode) and "
                   "beta's sigmoids as s / (1 + 2^(-x log2(e))) with an "
                   "approximate division (ex2.approx.ftz and div.approx on "
                   "the GPU) instead of an exp and an IEEE division (on by "
                   "default; --approximate-sigmoid=false for the exact "
                   "form)"),
    llvm::cl::init(true));


static llvm::cl::list<std::string> tuningOverrideOption(
    "tuning-override",
    llvm::cl::desc("KERNEL.KEY=VALUE: replace what the target's kernel "
                   "tuning chose for one kernel (e.g. "
                   "chunk_recurrence.threads=256; KERNEL chunk_stages: "
                   "every per-chunk stage kernel; keys: threads, "
                   "max_registers, max_live_bytes, block_k, block_v, "
                   "speculate_loads, hoist_addresses, stages, mapping="
                   "registers|shared_memory); repeatable"),
    llvm::cl::CommaSeparated);

static llvm::cl::opt<bool> noCubinOption(
    "no-cubin", llvm::cl::desc("--kda-to-bundle: do not assemble a cubin"),
    llvm::cl::init(false));
static llvm::cl::opt<bool> noCpuOption(
    "no-cpu", llvm::cl::desc("--kda-to-bundle: do not build the CPU version"),
    llvm::cl::init(false));

/// Whether any flag that chooses the forward's form (chunk size, which
/// stages are fused) is on the command line.
static bool formFlagsGiven() {
  return chunkSizeOption.getNumOccurrences() ||
         fuseRecurrenceOption.getNumOccurrences() ||
         fuseScanOutputOption.getNumOccurrences() ||
         fuseChunkKernelsOption.getNumOccurrences() ||
         fusePreprocessingOption.getNumOccurrences();
}

/// The PTX options given on the command line for `module`: its forward in
/// the form the target tuning prefers (kda::preferredForwardForm) unless a
/// form flag is given, then exactly the form the flags name.
static kda::PTXEmitterOptions getPTXOptions(ModuleOp module) {
  kda::PTXEmitterOptions options;
  options.chip = chipOption;
  options.features = featuresOption;
  options.toolkit = toolkitOption;
  options.maxRegisters = maxRegistersOption;
  options.registerTiles = !noRegisterTilesOption;
  options.assignLayouts = assignLayoutsOption;
  options.registerRecurrences = registerRecurrencesOption;
  options.prefetch = prefetchOption;
  options.warpShuffles = warpShufflesOption;
  options.duplicateSmallOperands = duplicateSmallOperandsOption;
  options.scanLayouts = scanLayoutsOption;
  options.addressHoisting = addressHoistingOption;
  if (formFlagsGiven()) {
    options.stages.chunkSize = chunkSizeOption;
    options.stages.recurrence = fuseRecurrenceOption;
    options.stages.scanOutput = fuseScanOutputOption;
    options.stages.chunkKernels = fuseChunkKernelsOption;
    options.stages.preprocessing = fusePreprocessingOption;
  } else {
    kda::ForwardForm form = kda::preferredForwardForm(module);
    options.stages = form.stages;
    // An explicit --duplicate-small-operands[=false] wins over the form's.
    if (!duplicateSmallOperandsOption.getNumOccurrences())
      options.duplicateSmallOperands = form.duplicateSmallOperands;
  }
  options.stages.exactDiagonalFactoring = exactDiagonalFactoringOption;
  options.stages.exactDiagonalRows = exactDiagonalRowsOption;
  options.stages.approximateSigmoid = approximateSigmoidOption;
  options.stages.tuningOverrides.assign(tuningOverrideOption.begin(),
                                        tuningOverrideOption.end());
  return options;
}

/// Checks the flags that the pipeline would otherwise reject deep inside a
/// pass (--chunk-size) or ignore (--fuse-preprocessing alone).
static LogicalResult checkOptions(ModuleOp module) {
  const int64_t chunk = chunkSizeOption;
  if (chunk != 0 && chunk != 16 && chunk != 32 && chunk != 64)
    return emitError(module.getLoc())
           << "--chunk-size must be 16, 32 or 64 (0 keeps the program's "
              "chunk_size), got "
           << chunk;
  if (fusePreprocessingOption && !fuseChunkKernelsOption)
    return emitError(module.getLoc())
           << "--fuse-preprocessing runs l2norm and the beta sigmoid in the "
              "fused per-chunk kernel, so it needs --fuse-chunk-kernels";
  return success();
}

int main(int argc, char **argv) {
  TranslateFromMLIRRegistration ptx(
      "kda-to-ptx", "compile a kda program to PTX",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a builtin.module");
        if (failed(checkOptions(module)))
          return failure();
        return kda::emitPTX(module, getPTXOptions(module), os);
      },
      [](DialectRegistry &registry) {
        kda::registerAllKDADialects(registry);
      });
  TranslateFromMLIRRegistration bundle(
      "kda-to-bundle",
      "compile a kda program to a kernel bundle (PTX, cubin, CPU build and "
      "launch manifest; see docs/bundle-format.md)",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a builtin.module");
        if (failed(checkOptions(module)))
          return failure();
        kda::BundleEmitterOptions options;
        options.ptx = getPTXOptions(module);
        options.cubin = !noCubinOption;
        options.cpu = !noCpuOption;
        return kda::emitBundle(module, options, os);
      },
      [](DialectRegistry &registry) {
        kda::registerAllKDADialects(registry);
      });
  return failed(mlirTranslateMain(argc, argv, "kda translation driver\n"));
}
