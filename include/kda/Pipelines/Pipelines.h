//===- Pipelines.h - kda lowering pipelines ---------------------*- C++ -*-===//

#ifndef KDA_PIPELINES_PIPELINES_H
#define KDA_PIPELINES_PIPELINES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "kda/Target/KernelTuning.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::kda {

/// The options every kda pipeline has: how the forward's stages are grouped
/// into kernels and built.
#define KDA_STAGE_OPTIONS                                                      \
  PassOptions::Option<int64_t> chunkSize{                                      \
      *this, "chunk-size",                                                     \
      llvm::cl::desc("Chunk size of the forward (16, 32 or 64; "              \
                     "convert-chunk-fwd-to-stages chunk-size); 0 keeps the "   \
                     "op's chunk_size"),                                       \
      llvm::cl::init(0)};                                                      \
  PassOptions::Option<bool> fuseRecurrence{                                    \
      *this, "fuse-recurrence",                                                \
      llvm::cl::desc("Write the WY recompute, the state scan and the output "  \
                     "as kda.decay_apply and kda.chunk_recurrence "            \
                     "(kda-fuse-recurrence): no w, u, h or v_new in memory"),  \
      llvm::cl::init(false)};                                                  \
  PassOptions::Option<bool> fuseScanOutput{                                    \
      *this, "fuse-scan-output",                                               \
      llvm::cl::desc("Compute the output inside the state scan "             \
                     "(kda-fuse-scan-output): no h or v_new in memory, "       \
                     "one kernel fewer"),                                      \
      llvm::cl::init(false)};                                                  \
  PassOptions::Option<bool> fuseChunkKernels{                                  \
      *this, "fuse-chunk-kernels",                                             \
      llvm::cl::desc("Run the per-chunk stages that follow one another "      \
                     "(gate cumsum, diagonal blocks, solve, WY recompute or "  \
                     "decay_apply) as one kernel (convert-kda-to-tile "        \
                     "fusable-chunk-stages, kda-fuse-tile-launches)"),         \
      llvm::cl::init(false)};                                                  \
  PassOptions::Option<bool> fusePreprocessing{                                 \
      *this, "fuse-preprocessing",                                             \
      llvm::cl::desc("With fuse-chunk-kernels, l2norm and the beta sigmoid "   \
                     "run in the fused per-chunk kernel too (convert-kda-"     \
                     "to-tile fuse-preprocessing)"),                           \
      llvm::cl::init(false)};                                                  \
  PassOptions::Option<bool> exactDiagonalFactoring{                            \
      *this, "exact-diagonal-factoring",                                       \
      llvm::cl::desc("intra_diag's exact path factors its decays through "    \
                     "a reference row where the gate drop allows "             \
                     "(convert-kda-to-tile exact-diagonal-factoring)"),        \
      llvm::cl::init(false)};                                                  \
  PassOptions::Option<bool> exactDiagonalRows{                                 \
      *this, "exact-diagonal-rows",                                            \
      llvm::cl::desc("intra_diag's exact path forms its decays by key "       \
                     "rows, in 2-D tiles (convert-kda-to-tile "                \
                     "exact-diagonal-rows)"),                                  \
      llvm::cl::init(false)};                                                  \
  PassOptions::Option<bool> approximateSigmoid{                                \
      *this, "approximate-sigmoid",                                            \
      llvm::cl::desc("The in-kernel gate's and beta's sigmoids with exp2 "    \
                     "and an approximate division (convert-kda-to-tile "      \
                     "approximate-sigmoid)"),                                  \
      llvm::cl::init(false)};                                                  \
  PassOptions::ListOption<std::string> tuningOverrides{                        \
      *this, "tuning-override",                                                \
      llvm::cl::desc("KERNEL.KEY=VALUE entries that replace a kernel's "      \
                     "tuning (convert-kda-to-tile tuning-override)")};

/// How the forward's stages are grouped into kernels and built (the
/// options KDA_STAGE_OPTIONS declares); the GPU and CPU builds of a
/// bundle take the same.
struct StageOptions {
  /// convert-chunk-fwd-to-stages's chunk-size (0: each op's own).
  int64_t chunkSize = 0;
  /// kda-fuse-recurrence.
  bool recurrence = false;
  /// kda-fuse-scan-output.
  bool scanOutput = false;
  /// kda-fuse-tile-launches on the per-chunk stages.
  bool chunkKernels = false;
  /// convert-kda-to-tile's fuse-preprocessing (with chunkKernels).
  bool preprocessing = false;
  /// convert-kda-to-tile's exact-diagonal-factoring.
  bool exactDiagonalFactoring = false;
  /// convert-kda-to-tile's exact-diagonal-rows.
  bool exactDiagonalRows = false;
  /// convert-kda-to-tile's approximate-sigmoid.
  bool approximateSigmoid = false;
  /// convert-kda-to-tile's tuning-override entries.
  std::vector<std::string> tuningOverrides;

  /// The stage options that `options`, pipeline options with
  /// KDA_STAGE_OPTIONS, ask for.
  template <typename Options> static StageOptions of(const Options &options) {
    return {options.chunkSize,
            options.fuseRecurrence,
            options.fuseScanOutput,
            options.fuseChunkKernels,
            options.fusePreprocessing,
            options.exactDiagonalFactoring,
            options.exactDiagonalRows,
            options.approximateSigmoid,
            std::vector<std::string>(options.tuningOverrides.begin(),
                                     options.tuningOverrides.end())};
  }
  /// Sets the KDA_STAGE_OPTIONS of the pipeline options `options` to these.
  template <typename Options> void applyTo(Options &options) const {
    options.chunkSize = chunkSize;
    options.fuseRecurrence = recurrence;
    options.fuseScanOutput = scanOutput;
    options.fuseChunkKernels = chunkKernels;
    options.fusePreprocessing = preprocessing;
    options.exactDiagonalFactoring = exactDiagonalFactoring;
    options.exactDiagonalRows = exactDiagonalRows;
    options.approximateSigmoid = approximateSigmoid;
    options.tuningOverrides = llvm::ArrayRef<std::string>(tuningOverrides);
  }
};

/// The form a program's forwards are built in, as the target tuning prefers
/// it (preferredForwardForm).
struct ForwardForm {
  /// The stage options of that form.
  StageOptions stages;
  /// kda-assign-tile-layouts' duplicate-small-operands (the recurrent
  /// form's M and Aqk computed in every warp).
  bool duplicateSmallOperands = false;
};

/// The form the Hopper tuning prefers for `module`: the recurrent
/// two-kernel form (kda-fuse-recurrence, the fused per-chunk kernel, chunks
/// of 16; small operands duplicated where the head counts are static) when
/// the module has a kda.chunk_fwd and every one of them prefers it
/// (prefersRecurrentForward: K from 65 to 128, q, k and v of one 16-bit
/// type); otherwise the staged form, each stage its own kernel at the op's
/// chunk_size. kda-translate builds in this form unless its form flags say
/// otherwise.
ForwardForm preferredForwardForm(ModuleOp module);

/// Options of the target-independent kda pipelines (linalg, CPU).
struct KDAPipelineOptions : public PassPipelineOptions<KDAPipelineOptions> {
  KDA_STAGE_OPTIONS
};

/// Options of the kda -> PTX pipeline.
struct KDAToPTXPipelineOptions
    : public PassPipelineOptions<KDAToPTXPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Target GPU architecture (sm_90, sm_90a, ...)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features (at least +ptx80 for sm_90)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<int> optLevel{*this, "opt-level",
                                    llvm::cl::desc("LLVM optimization level"),
                                    llvm::cl::init(3)};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit directory (for libdevice); defaults to "
                     "CUDA_ROOT/CUDA_HOME/CUDA_PATH (kda-translate "
                     "searches further)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("kda-serialize-gpu-modules format: isa (PTX), bin "
                     "(cubin), llvm, fatbin"),
      llvm::cl::init("isa")};
  PassOptions::Option<int64_t> numThreads{
      *this, "num-threads",
      llvm::cl::desc("Threads per block for kernels that do not say"),
      llvm::cl::init(128)};
  PassOptions::Option<int64_t> maxRegisters{
      *this, "max-registers",
      llvm::cl::desc("Register limit per thread (PTX .maxnreg); 0: ptxas "
                     "decides"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> registerTiles{
      *this, "register-tiles",
      llvm::cl::desc("Run on registers (convert-tile-to-simt) the kernels "
                     "whose tiles carry #tile.dist layouts, and by default "
                     "give layouts to those the target's kernel tuning "
                     "runs on registers (the seed kernel, inter_solve); "
                     "false: every kernel on the shared-memory mapping"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> assignLayouts{
      *this, "assign-layouts",
      llvm::cl::desc("Give the tiles of every kernel that can run on "
                     "registers #tile.dist layouts first "
                     "(kda-assign-tile-layouts)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> registerRecurrences{
      *this, "register-recurrences",
      llvm::cl::desc("Give #tile.dist layouts to the kernels that are "
                     "recurrences (a dot's B operand computed from a dot's "
                     "result: the state scans, the chunk recurrence) and run "
                     "them on registers with their register tuning; the "
                     "other kernels keep the shared-memory mapping"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> prefetch{
      *this, "prefetch",
      llvm::cl::desc("On registers, load a loop's tiles one trip ahead in "
                     "every kernel: dot operands kept in shared memory and "
                     "register tiles (convert-tile-to-simt's prefetch)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> warpShuffles{
      *this, "warp-shuffles",
      llvm::cl::desc("On registers, move the elements of a layout change "
                     "that stays within each warp by shfl.sync.idx instead "
                     "of through shared memory (convert-tile-to-simt's "
                     "warp-shuffles)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> duplicateSmallOperands{
      *this, "duplicate-small-operands",
      llvm::cl::desc("On registers, compute a small computed A operand of a "
                     "recurrence in every warp instead of converting it "
                     "through shared memory (kda-assign-tile-layouts' "
                     "duplicate-small-operands)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> scanLayouts{
      *this, "scan-layouts",
      llvm::cl::desc("On registers, give each tile.scan a layout whose "
                     "warps do not split the scanned dimension, so that no "
                     "scan exchanges through shared memory "
                     "(kda-assign-tile-layouts' scan-layouts)"),
      llvm::cl::init(true)};
  PassOptions::Option<AddressHoisting> addressHoisting{
      *this, "address-hoisting",
      llvm::cl::desc("Which kernels compute their global addresses as a "
                     "program base plus a per-access offset "
                     "(gpu-hoist-uniform-addresses)"),
      llvm::cl::init(AddressHoisting::tuned),
      llvm::cl::values(
          clEnumValN(AddressHoisting::tuned, "tuned",
                     "those the target's kernel tuning marks"),
          clEnumValN(AddressHoisting::all, "all", "every kernel"),
          clEnumValN(AddressHoisting::none, "none", "none"))};
  KDA_STAGE_OPTIONS
};

/// kda ops -> tile kernels -> linalg on tensors (target independent).
void buildKDAToLinalgPipeline(OpPassManager &pm,
                              const KDAPipelineOptions &options);

/// kda ops -> ... -> gpu.module -> nvvm -> gpu.binary holding PTX.
void buildKDAToPTXPipeline(OpPassManager &pm,
                           const KDAToPTXPipelineOptions &options);

/// kda ops -> ... -> LLVM dialect host code, runnable with the
/// ExecutionEngine (every host entry gets a C interface).
void buildKDAToCPUPipeline(OpPassManager &pm,
                           const KDAPipelineOptions &options);

/// Registers --kda-to-linalg-pipeline, --kda-to-ptx-pipeline and
/// --kda-to-cpu-pipeline.
void registerKDAPipelines();

} // namespace mlir::kda

#endif // KDA_PIPELINES_PIPELINES_H
