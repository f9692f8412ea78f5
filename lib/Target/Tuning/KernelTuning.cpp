//===- KernelTuning.cpp - how each kda kernel runs on Hopper --------------===//
//
// The Hopper (sm_90) KernelTuningTarget. Every number here was chosen by
// measurement on an H200 (median of CUDA events, the shape given beside
// it); docs/performance.md has the runs.
//
//===----------------------------------------------------------------------===//

#include "kda/Target/KernelTuning.h"

#include "llvm/Support/ErrorHandling.h"

#include <mutex>

using namespace mlir::kda;

/// A tuning of `numThreads` threads per program, every other field at its
/// default; the tables below set the fields they change by name.
static KernelTuning withThreads(int64_t numThreads) {
  KernelTuning tuning;
  tuning.numThreads = numThreads;
  return tuning;
}

/// l2norm and beta_activation: 4 warps per program.
static KernelTuning preprocessTuning() { return withThreads(128); }

/// The gate chunk sum: 4 warps per program. Tiles of 64 columns instead of
/// 32 ran the precomputed gate 227 -> 205 us and the gate computed in the
/// kernel 204 -> 222 us (16: 202 -> 234 us), at B=1, T=8192, H=HV=96,
/// K=128.
static KernelTuning gateTuning(bool precomputed) {
  KernelTuning tuning = withThreads(128);
  tuning.blockK = precomputed ? 64 : 32;
  return tuning;
}

/// intra_diag: 2 warps on the exact path, 1 on the safe_gate path. Fewer
/// threads per program leave room for more programs per SM, which hide
/// each other's barriers and loads: at B=1, T=8192, H=HV=96, K=128 the
/// exact path ran 617 us with 4 warps, 560 with 2 and 648 with 1; the
/// safe_gate path 470, 429 and 381.
///
/// K tiles: with 128 columns, K <= 128 runs in one step on the exact path:
/// each sub-chunk loads q, k and G once and its pairwise sums run without a
/// K loop around them (the K loop's copies, waits and barriers cost more
/// than the wider tiles' shared memory: 740 -> 618 us against tiles of 32).
/// The safe_gate path stays at 32 (64 ran 471 -> 546 us, 16 467 -> 787).
///
/// Addresses as a program base plus per-access offsets
/// (gpu-hoist-uniform-addresses): with dynamic head counts the exact path
/// ran 695 -> 612 us (ptxas 240 -> 144 registers); with static heads 550
/// -> 554 us (B=1, T=8192, H=HV=96, K=128, bf16, whole forward).
static KernelTuning intraDiagTuning(bool safeGate) {
  KernelTuning tuning = withThreads(safeGate ? 32 : 64);
  tuning.blockK = safeGate ? 32 : 128;
  tuning.hoistAddresses = true;
  return tuning;
}

/// inter_solve (the seed kernel): 2 warps per program, at most 128
/// registers per thread, at B=1, T=8192, H=HV=96, K=128.
///
/// Shared-memory mapping: with 4 warps the kernel ran 790 us (80 registers,
/// ptxas spilling a few bytes), with 2 warps 716 us (no spill) and with 1
/// warp 1.05 ms. With 4 warps and no register limit ptxas took 168
/// registers (3 blocks per SM) and the kernel ran 1.40 ms, with a limit of
/// 80 0.92 ms. With 2 warps ptxas takes about 110 without a limit; 128
/// keeps it from growing past 4 blocks' worth of the register file, 96 (no
/// spill either) ran 729 against 716 us. K tiles of 32 columns: 64 ran 792
/// -> 917 us, 128 and 16 1.29 ms.
///
/// Registers: K tiles of 16 columns (ptxas spills 108 bytes instead of 608
/// at the 128 cap) ran 0.733 ms against 0.810 with 32 (safe_gate 0.687
/// against 0.766); on the shared-memory mapping 16 ran 1.207 ms.
///
/// Loads speculated out of the per-sub-chunk branches (all of a K step's
/// loads issue at once instead of one sub-chunk's after the previous one's
/// dots; fla 0.619 / 0.487 ms in the same run): shared memory 0.750 ->
/// 0.673 ms (safe_gate 0.728 -> 0.646). On registers they need more
/// registers: at the 128 cap ptxas spills 218 bytes and the kernel slowed
/// 0.741 -> 0.824 ms; at 168 (no spill, 6 blocks per SM instead of 8) it
/// ran 0.610 ms (safe_gate 0.575).
///
/// Addresses as a program base plus per-access offsets
/// (gpu-hoist-uniform-addresses), B=1 alone (fla 0.620 / 0.488 ms in the
/// same run): registers 0.627 -> 0.544 ms (safe_gate 0.511 -> 0.498; ptxas
/// no longer spills at 168), shared memory 0.678 -> 0.660 (0.511 ->
/// 0.499); in the whole forward with a dynamic batch 706 -> 691 us, with
/// dynamic head counts 703 -> 675 us.
static KernelTuning interSolveTuning(TileMapping mapping) {
  const bool registers = mapping == TileMapping::registers;
  KernelTuning tuning = withThreads(64);
  tuning.maxRegisters = registers ? 168 : 128;
  tuning.blockK = registers ? 16 : 32;
  tuning.speculateLoads = true;
  tuning.hoistAddresses = true;
  return tuning;
}

/// wy_recompute: 4 warps per program, at most 128 registers per thread. At
/// B=1, T=8192, H=HV=96, K=V=128 the kernel ran 488 us with at most 96
/// registers (ptxas spills 164 bytes), 424 with 128 (12 bytes), 462 with
/// 144, 458 with 160 and 575 with no limit (192 registers). Addresses as a
/// program base plus offsets (gpu-hoist-uniform-addresses) slowed it: 401
/// -> 446 us with a dynamic batch (ptxas spills 88 bytes at 128), 480 ->
/// 503 with dynamic head counts; it keeps the memref lowering's addresses.
static KernelTuning wyRecomputeTuning() {
  KernelTuning tuning = withThreads(128);
  tuning.maxRegisters = 128;
  return tuning;
}

/// output: 4 warps per program. With every dot in registers the loaded
/// tiles are what the program's shared memory holds, so the later loads
/// wait for the first compute rather than hold all six tiles at once, at
/// most 64 KiB of them (3 blocks per SM instead of 2).
static KernelTuning outputTuning(bool registerDots) {
  KernelTuning tuning = withThreads(128);
  tuning.maxLiveBytes = registerDots ? 64 * 1024 : 0;
  return tuning;
}

/// state_scan: 4 warps per program (2 and 8 ran 611 and 836 us against 602
/// at B=1, T=8192, H=HV=96, K=V=128). Addresses as a program base plus
/// offsets slowed it (611 -> 626 us with a dynamic batch, 836 -> 893 with
/// dynamic head counts), so it keeps the memref lowering's addresses; the
/// gate and output kernels did not change (within 1 %).
///
/// The fused scan-and-output kernel: its loads move up only as far as 32
/// KiB of live tiles allow. With the query and gate tiles of K above 128
/// the program would otherwise need more shared memory than a block may
/// have (K = 256 only fits with a limit); at the shape above (whole
/// forward, bf16) 32 KiB ran 4.20 ms, 16 KiB 4.32 and no limit 4.37 (130
/// KiB of shared memory, one block per SM). One stage (no prefetch) on
/// registers: copying w and kg one chunk ahead (stages = 2) ran the
/// default forward slower at B=1 T=8192 H=96 (docs/performance.md), and
/// faster only where a few programs run per SM.
static KernelTuning stateScanTuning(bool fused) {
  KernelTuning tuning = withThreads(128);
  tuning.maxLiveBytes = fused ? 32 * 1024 : 0;
  return tuning;
}

/// The recurrent form (kda-fuse-recurrence): decay_apply, elementwise over
/// [BT, 64] tiles, takes wy_recompute's 4 warps without a register cap.
static KernelTuning decayApplyTuning() { return withThreads(128); }

/// The recurrence of the recurrent form (kda.chunk_recurrence): the fused
/// scan's 4 warps, its loads moving up only as far as 32 KiB of live tiles
/// allow (so that K = 256 fits a block's shared memory).
///
/// On registers, measured on an H100 at B=1, K=V=128, bf16, chunk 16, in
/// the two-kernel forward (--fuse-recurrence --fuse-chunk-kernels, fla
/// 3.241 / 4.553 ms in the same run, docs/performance.md, 2026-12-05),
/// T=8192 H=HV=96 and T=32768 H=HV=32:
///  - no register cap, one stage: 2.739 / 6.583 ms (167 registers);
///  - at most 168 registers (3 blocks per SM) and the dot operands kept in
///    shared memory copied one chunk ahead (stages = 2): 2.523 / 5.568;
///    at most 128: 2.580 / 5.416;
///  - and every load of a chunk issued at the chunk's start (speculated out
///    of the branches around them, speculateLoads): 2.214 / 4.065; and the
///    addresses as a program base plus offsets (152 registers): 2.186 /
///    4.047;
///  - and the register tiles (v, beta, M, Aqk, decay_last) loaded one chunk
///    ahead too (stages = 2 on registers since): 2.196 / 3.750 (the kernel
///    1.71 -> 1.24 ms at the first shape). Without the cap (211 registers,
///    2 blocks per SM) 2.661 / 3.813; at 128 (spilling) 2.881 / 5.235.
///  - 16 columns of V per program instead of 32 (twice the programs) ran
///    4.49 ms with 4 warps and 4.98 with 2 at the first shape.
/// Measured on an H100 on 2026-12-06 (kda-run, the recurrence alone, B=1
/// T=8192 H=HV=96 and T=32768 H=HV=32, K=V=128 bf16, chunk 16; default
/// 0.951 / 2.044 ms): 8 warps per 64 columns 1.38-1.40 (capped at 128
/// registers) and 1.66-1.67 (uncapped); stages 3 1.038, stages 4 0.947 /
/// 2.036-2.053 (level); the state transposed (transpose_state, 64 columns
/// of 4 warps, 192 programs) 2.13 ms at this cap (560 bytes spilled), 1.011
/// / 2.884 at 232 registers and 1.019 / 2.98 uncapped. None is kept.
/// The same day (seventh): 2 warps of 16 columns each (32 columns per
/// program as before, each A fragment read by ldmatrix feeding two
/// mma.sync; 221 registers at a cap of 232, no spill) ran the recurrence
/// 0.974 -> 0.805 ms, and in the forward with the prepare kernel's gate
/// changes 0.958 -> 0.781 (fla's flags), 0.948 -> 0.768 (FlashKDA's),
/// 2.038 -> 1.952 at T=32768 H=HV=32: kept. 64 columns of 4 warps at 255
/// registers 0.953, 128 columns of 8 warps 1.003, the transposed state on
/// 8 warps 1.319, one warp of 16 columns spills 4 KB.
/// The eighth entry (same shapes, default 0.779-0.784 / 1.954 ms with fla's
/// flags): stages 3 0.773 (level), stages 4 0.807; the state transposed on
/// these 2 warps (16 V rows each, no movmatrix; 230 registers at 255)
/// 0.811 / 2.348, at 232 (8 bytes spilled) 0.847; the chunk loop unrolled
/// twice 1.00 (255 registers) to 1.36 (232, spilling). None is kept: a step
/// is one warp's stream of about 625 instructions (one issued every 3.8
/// cycles, docs/performance.md), not a wait on memory.
static KernelTuning chunkRecurrenceTuning(TileMapping mapping) {
  KernelTuning tuning = stateScanTuning(/*fused=*/true);
  if (mapping == TileMapping::registers) {
    // 2 warps of 16 columns each (see above).
    tuning.numThreads = 64;
    tuning.maxRegisters = 232;
    tuning.stages = 2;
    tuning.speculateLoads = true;
    tuning.hoistAddresses = true;
  }
  return tuning;
}

/// The tuning of `kernel` for `mapping`, without the mapping recorded.
static KernelTuning tuningFor(TunedKernel kernel, TileMapping mapping) {
  switch (kernel) {
  case TunedKernel::l2norm:
  case TunedKernel::betaActivation:
    return preprocessTuning();
  case TunedKernel::gate:
    return gateTuning(/*precomputed=*/false);
  case TunedKernel::gatePrecomputed:
    return gateTuning(/*precomputed=*/true);
  case TunedKernel::intraDiagExact:
    return intraDiagTuning(/*safeGate=*/false);
  case TunedKernel::intraDiagSafe:
    return intraDiagTuning(/*safeGate=*/true);
  case TunedKernel::interSolve:
  case TunedKernel::interSolveSafe:
  case TunedKernel::interSolveIEEEMerge:
    return interSolveTuning(mapping);
  case TunedKernel::wyRecompute:
    return wyRecomputeTuning();
  case TunedKernel::output:
    return outputTuning(/*registerDots=*/false);
  case TunedKernel::outputRegisterDots:
    return outputTuning(/*registerDots=*/true);
  case TunedKernel::stateScan:
    return stateScanTuning(/*fused=*/false);
  case TunedKernel::stateScanFused:
    return stateScanTuning(/*fused=*/true);
  case TunedKernel::chunkRecurrence:
    return chunkRecurrenceTuning(mapping);
  case TunedKernel::decayApply:
    return decayApplyTuning();
  }
  llvm_unreachable("unknown tuned kernel");
}

/// Whether the chunk recurrence runs on registers. Measured with K = 128 and
/// bf16 operands, which the register lowering stages through shared memory
/// for the dots. With K <= 64 (operands below its staging threshold, held
/// by every warp) ptxas spilled 96-128 bytes at the cap of 168; the
/// recurrent form at K = 64 now assembles without spills on registers (165
/// and 166 registers with fla's and FlashKDA's flags, 2026-12-06) but is
/// not timed yet. With K = 256 it spills 1792 bytes, and with f32 operands
/// every warp holds whole [BT, K] f32 tiles: those stay on shared memory
/// until measured.
static bool chunkRecurrenceOnRegisters(int64_t stateRows, bool sixteenBitDots) {
  return stateRows > 64 && stateRows <= 128 && sixteenBitDots;
}

/// The seed kernel runs faster on registers, except with varlen and static
/// head counts, and so does the chunk recurrence where
/// chunkRecurrenceOnRegisters says (end of this comment). The seed kernel's
/// measurements (H200, T=8192, H=HV=96,
/// K=128, bf16; docs/performance.md, 2026-12-03), all with its addresses
/// as a program base plus per-access offsets (gpu-hoist-uniform-addresses):
///  - B=1 alone (fla 0.620 / 0.488 ms in the same run): 0.544 ms on
///    registers against 0.660 on shared memory (safe_gate 0.498 against
///    0.499).
///  - A dynamic batch, as in the forward's bundles: ptxas no longer spills
///    at 168 registers (236 bytes before the address split). Whole forward
///    2.894 -> 2.737 ms with fla's default flags (fla 2.732), 2.976 ->
///    2.816 with FlashKDA's (inter_solve 648 -> 489 us; fla 2.619).
///  - Varlen with static head counts, safe_gate (FlashKDA's flags, B=1):
///    the forward's inter_solve ran 0.756 ms on registers against 0.661
///    before the address split (ptxas spilled 88 bytes at the cap of 168);
///    not measured since, so it stays on shared memory.
///  - Dynamic head counts (the embedded default bundles, 2026-12-04): the
///    register loads and stores address a dynamic row stride through an
///    opaque multiple of it (convert-tile-to-simt). Whole forward at B=1,
///    T=8192, H=HV=96 (kda-run, two runs each): K=128 2.92 -> 2.81 ms with
///    fla's flags, 3.03 -> 2.90 with FlashKDA's; K=64 1.89 -> 1.78 and
///    1.97 -> 1.86. Varlen too (six sequences of 8192 tokens in all):
///    K=128 3.050 -> 3.009 and 3.187 -> 3.118 ms, K=64 1.887 -> 1.801 and
///    1.992 -> 1.899, although ptxas spills 64-76 bytes there at 168.
///  - The merge at ieee precision has no register lowering
///    (kda-assign-tile-layouts would leave it on shared memory with the
///    register mapping's K tiles of 16, which slow it down).
/// The state scan on registers (--register-recurrences) ran the forward
/// 3.114 against 2.994 ms (2026-12-02). The recurrent form's recurrence
/// runs on registers: at chunk 16, B=1, T=8192, H=HV=96 its forward ran
/// 2.708 ms against 3.36 on shared memory on an H200 (2026-12-04), before
/// the register tuning of chunkRecurrenceTuning. The fused per-chunk
/// kernel of that form follows its recurrence (below). The staged kernels
/// other than inter_solve have no register version that wins yet.
static TileMapping preferredMapping(TunedKernel kernel,
                                    const KernelShape &shape) {
  // The recurrent forward's fused per-chunk kernel runs on registers where
  // its chunk recurrence does (K = 128 bf16, H100, B=1 T=8192 H=HV=96,
  // beside fla, docs/performance.md 2026-12-06 (third)): 2.155 against
  // 2.164 ms with fla's flags (the exact diagonal blocks by key rows), and
  // with FlashKDA's flags, l2norm and the beta sigmoid in it
  // (fuse-preprocessing, preferredForwardForm), 2.424 against 2.531 ms for
  // the shared-memory kernel and their own two kernels.
  if (shape.fusedChunkStage)
    return chunkRecurrenceOnRegisters(shape.stateRows, shape.sixteenBitDots)
               ? TileMapping::registers
               : TileMapping::sharedMemory;
  switch (kernel) {
  case TunedKernel::interSolve:
  case TunedKernel::interSolveSafe:
    return shape.varlen && shape.staticHeads ? TileMapping::sharedMemory
                                             : TileMapping::registers;
  case TunedKernel::chunkRecurrence:
    return chunkRecurrenceOnRegisters(shape.stateRows, shape.sixteenBitDots)
               ? TileMapping::registers
               : TileMapping::sharedMemory;
  default:
    return TileMapping::sharedMemory;
  }
}

/// A part of the recurrent forward's fused per-chunk kernel, whose
/// `tuning` is the part's own: on registers at most 96 registers per
/// thread (the fused kernel takes its parts' highest cap), 5 programs of 4
/// warps per SM instead of 4. Measured on an H100 at B=1, T=8192, H=HV=96,
/// K=V=128 bf16 (docs/performance.md, 2026-12-06 (fourth); kda-run
/// --bench-kernels, two runs): the fused kernel 1.224 / 1.221 -> 1.070 /
/// 1.096 ms with fla's flags (ptxas 122 -> 94 registers, no spill), 1.462
/// -> 1.296 ms with FlashKDA's (l2norm and the beta sigmoid inside); the
/// forward 2.148 / 2.157 -> 2.019 / 2.021 and 2.399 / 2.396 -> 2.230 /
/// 2.260 ms. A cap of 128 changed nothing (ptxas took 123).
///
/// On registers the gate's cumulative sum takes the whole K in one tile
/// (block_k 128 instead of 32 or 64): with the scan's own layout
/// (kda-assign-tile-layouts scan-layouts, kda-translate's default) each
/// warp sums 32 columns, and no warp holds a copy of another's. Measured
/// on an H100 (B=1 T=8192 H=HV=96 K=V=128 bf16, kda-run, 2026-12-06
/// (seventh)) with the scan layouts and the 2-warp recurrence: the prepare
/// kernel 1.006 -> 0.952 ms with fla's flags, 1.296 -> 0.974 with
/// FlashKDA's (and the approximate sigmoid, which alone took it 1.305 ->
/// 1.193). Before the shared-memory fix of d0fde88 the one-trip gate's
/// exchange and output buffers shared bytes without a barrier (wrong
/// results).
static KernelTuning fusedChunkStageTuning(TunedKernel kernel,
                                          KernelTuning tuning) {
  if (tuning.mapping == TileMapping::registers) {
    tuning.maxRegisters = 96;
    if (kernel == TunedKernel::gate || kernel == TunedKernel::gatePrecomputed)
      tuning.blockK = 128;
  }
  return tuning;
}

namespace {
/// The Hopper tuning: the tables above.
struct HopperKernelTuning : KernelTuningTarget {
  KernelTuning getKernelTuning(TunedKernel kernel,
                               TileMapping mapping) const override {
    KernelTuning tuning = tuningFor(kernel, mapping);
    tuning.mapping = mapping;
    return tuning;
  }
  TileMapping getPreferredMapping(TunedKernel kernel,
                                  const KernelShape &shape) const override {
    return preferredMapping(kernel, shape);
  }
  KernelTuning
  getFusedChunkStageTuning(TunedKernel kernel,
                           const KernelShape &shape) const override {
    return fusedChunkStageTuning(
        kernel, KernelTuningTarget::getFusedChunkStageTuning(kernel, shape));
  }
};
} // namespace

/// Measured on an H100 on 2026-12-06 (docs/performance.md), each beside
/// fla's chunk_kda in one run: at K = V = 128 bf16 the two-kernel
/// recurrent form at chunk 16 (with duplicated small operands) took
/// 0.70-0.79x the staged form's time at every anchor shape (B=1 T=8192
/// H=96 2.170 against 3.118 ms; fla 3.288); chunk 32 took 2.771. At K = V = 64 it was
/// slower (2.117 against 1.912 ms at T=8192 H=96), its chunk recurrence on
/// shared memory. Again on an H100 on 2026-12-06 (kda-run, two rounds, the
/// same shape): K = V = 64 bf16 2.164-2.166 against 1.861-1.863 ms (staged
/// kept), K = V = 256 bf16 10.30-10.32 against 8.24-8.25 (staged kept), and
/// K = V = 128 with f32 I/O 10.199-10.201 against 10.888-10.937 (the
/// recurrent form faster, its chunk recurrence on shared memory; that form
/// with f32 I/O has passed the CPU checks and the float64 check of this one
/// GPU run, not yet the GPU tier of scripts/gpu-check.sh, so f32 stays
/// staged until it has).
bool mlir::kda::prefersRecurrentForward(int64_t keyDim,
                                        ForwardOperands operands) {
  switch (operands) {
  case ForwardOperands::sixteenBit:
    return chunkRecurrenceOnRegisters(keyDim, /*sixteenBitDots=*/true);
  case ForwardOperands::f32:
  case ForwardOperands::mixed:
    return false;
  }
  llvm_unreachable("unknown forward operands");
}

void mlir::kda::registerHopperKernelTuning() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerKernelTuningTarget(kHopperTuningName,
                               std::make_unique<HopperKernelTuning>());
  });
}
