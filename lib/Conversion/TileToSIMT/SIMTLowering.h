//===- SIMTLowering.h - register tiles to per-thread code -------*- C++ -*-===//
//
// Shared pieces of convert-tile-to-simt: a tile with a #tile.dist layout
// becomes a vector of the elements one thread holds (its registers, in the
// layout's register order), and every tile op becomes code on those
// vectors, the thread's lane and warp ids, shuffles, mma.sync and, only
// where threads of different warps exchange elements, shared memory.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_LIB_CONVERSION_TILETOSIMT_SIMTLOWERING_H
#define KDA_LIB_CONVERSION_TILETOSIMT_SIMTLOWERING_H

#include "kda/Dialect/Tile/TileDialect.h"
#include "kda/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"

#include <array>

namespace mlir::kda::simt {

using tile::DistLayoutAttr;

/// The #tile.dist layout of a tile type, or null.
DistLayoutAttr getLayout(Type type);

/// The register type of a tile: vector<registers x element>.
VectorType getRegisterType(RankedTensorType tile);

/// Where the current thread sits: its lane (0..31) and warp, as index values.
struct ThreadPosition {
  Value lane;
  Value warp;
};
ThreadPosition getThreadPosition(OpBuilder &b, Location loc);

/// Per tile dimension, the part of the current thread's element
/// coordinates that its lane and warp give (add a register's offsets,
/// DistLayoutAttr::getRegisterOffsets, to get the element's coordinates).
SmallVector<Value> getThreadOffsets(OpBuilder &b, Location loc,
                                    DistLayoutAttr layout,
                                    ThreadPosition thread);

/// True in the one thread of each group of threads that hold copies of the
/// same elements (replicated lanes and warps of `layout` at 0): the thread
/// that writes them to memory.
Value isCopyOwner(OpBuilder &b, Location loc, DistLayoutAttr layout,
                  ThreadPosition thread, int64_t numWarps);

/// Maps element coordinates of one tile to those of another.
using CoordinateMap = function_ref<SmallVector<int64_t>(ArrayRef<int64_t>)>;

/// For each register of `dst`, the register of `src` that holds, in the
/// same thread, the element `dstToSrc` maps that register's element to,
/// the same register for every thread of `numWarps` warps; failure if some
/// element lives in another thread (a conversion that must move data
/// between threads).
FailureOr<SmallVector<int64_t>> matchRegisters(DistLayoutAttr src,
                                               DistLayoutAttr dst,
                                               int64_t numWarps,
                                               CoordinateMap dstToSrc);

/// For 16-bit tiles whose layout change is, within each warp, a transpose
/// of 8x8 matrices (an mma.sync accumulator turning into a B operand): for
/// each pair of registers (d, d + 1) of `dst`, the two registers of `src`
/// that movmatrix.m8n8.trans reads as one pair to produce it; failure if
/// the change is anything else. `dstToSrc` as in matchRegisters.
FailureOr<SmallVector<std::array<int64_t, 2>>>
matchWarpTransposes(DistLayoutAttr src, DistLayoutAttr dst, int64_t numWarps,
                    CoordinateMap dstToSrc);

/// How one register of a layout change within each warp is gathered by
/// shfl.sync.idx: every lane reads, from lane `laneBase ^ L(lane)` (L the
/// GF(2)-linear map with L(1 << i) = laneFlips[i]), one of the candidate
/// source registers: candidate k > 0 where bit `lane` of
/// `selectMasks[k - 1]` is set, else candidate 0. Candidate k is source
/// register `sources[k][warp]` in warp `warp` (one entry when it is the
/// same register in every warp).
struct ShuffledRegister {
  int64_t laneBase = 0;
  std::array<int64_t, 5> laneFlips = {};
  SmallVector<SmallVector<int64_t>> sources;
  SmallVector<uint32_t> selectMasks;
};

/// For a layout change that keeps every element in its warp, with the
/// same lane pattern in every warp of `numWarps` (the source registers may
/// differ from warp to warp): for each register of `dst`, the shuffles
/// that gather it (a source lane XOR-linear in the lane's bits, as
/// power-of-2 layouts give); failure if an element lives in another warp,
/// the source lanes are not XOR-linear or the pattern differs between
/// warps. `dstToSrc` as in matchRegisters.
FailureOr<SmallVector<ShuffledRegister>>
matchWarpShuffles(DistLayoutAttr src, DistLayoutAttr dst, int64_t numWarps,
                  CoordinateMap dstToSrc);

/// Puts a gpu.barrier between each pair of accesses to one buffer (a
/// kernel argument, or a view of one) in `kernel` of which one writes and
/// the other comes later in program order, unless a barrier already
/// separates them: the threads that write an element are not in general
/// those that read it later. Loops count the accesses of an earlier trip,
/// and a region that may be skipped keeps what was pending before it.
void orderGlobalAccesses(func::FuncOp kernel);

/// Warps of the tile kernel around `op` (the threads of its tile.tuning / 32).
int64_t getProgramWarps(Operation *op);

/// Extracts register `index` of `registers`.
Value extractRegister(OpBuilder &b, Location loc, Value registers,
                      int64_t index);
/// Builds a register vector of `type` from one value per register.
Value buildRegisters(OpBuilder &b, Location loc, VectorType type,
                     ArrayRef<Value> values);

/// Stores the tile held in `registers` (laid out as in `type`) into
/// `buffer` (a shared memref of the tile's shape, or a view of one): the
/// one owner of each element (isCopyOwner) stores it. Adds no barrier.
void storeToShared(OpBuilder &b, Location loc, Value registers,
                   RankedTensorType type, int64_t numWarps, Value buffer);

/// Stores the tile held in `registers` (laid out as in `type`) into a new
/// shared buffer of the tile's shape: the one owner of each element
/// (isCopyOwner) stores it. With `leadingBarrier`, a barrier before the
/// stores (threads may still read the buffer of an earlier trip through a
/// loop); no barrier after them.
Value storeToSharedBuffer(OpBuilder &b, Location loc, Value registers,
                          RankedTensorType type, int64_t numWarps,
                          bool leadingBarrier);

/// Every thread loads its elements of a tile in the layout of `type` from
/// `buffer` (a tile stored by storeToSharedBuffer, after a barrier): result
/// dimension i is buffer dimension permutation[i] (empty: the identity).
Value loadFromSharedBuffer(OpBuilder &b, Location loc, Value buffer,
                           RankedTensorType type,
                           ArrayRef<int64_t> permutation = {});

/// What the warps along dimension `dim` of a tile in `layout` exchange
/// when they reduce or scan along it: each warp's value for each element of
/// the slice (`layout.getSlice(dim)`), in a shared [warps along `dim`,
/// slice shape] buffer.
struct WarpExchange {
  /// The shared buffer, the thread's offsets in the slice and the slice.
  Value buffer;
  SmallVector<Value> base;
  DistLayoutAttr slice;
  /// This thread's warp coordinate along `dim`.
  Value warpAlong;
  /// Loads warp `warp`'s value of slice register `reg` of this thread.
  Value load(OpBuilder &b, Location loc, int64_t warp, int64_t reg) const;
};

/// Stores `values` (this thread's value for each register of
/// `layout.getSlice(dim)`, the same in every lane along `dim`) into a new
/// WarpExchange buffer: a barrier, lane 0 along `dim` of each warp (no
/// replica of `layout`) stores, a barrier; every thread may then load.
WarpExchange exchangeAcrossWarps(OpBuilder &b, Location loc,
                                 DistLayoutAttr layout, int64_t dim,
                                 ArrayRef<Value> values,
                                 ThreadPosition thread, int64_t numWarps);

/// Moves the tile held in `registers` (laid out as in `srcType`) into the
/// layout of `dstType` through a shared-memory buffer of the source's
/// shape: a barrier (readers of an earlier trip through a loop), owners
/// store their elements, a barrier, every thread loads its elements.
/// Result dimension i is source dimension permutation[i] (empty: the
/// identity), so a transpose goes the same way.
Value convertThroughSharedMemory(OpBuilder &b, Location loc, Value registers,
                                 RankedTensorType srcType,
                                 RankedTensorType dstType, int64_t numWarps,
                                 ArrayRef<int64_t> permutation = {});

/// Where a dot operand kept in shared memory (keepsInSharedMemory) lives:
/// the buffer its tile is stored to, [rows, columns + kSharedOperandPad]
/// elements (rows padded so that the 8 rows an ldmatrix reads fall in
/// different banks), and, for a buffer of several slots (a load copied one
/// or more loop trips ahead, prefetchKeptLoads), the first buffer row of the slot
/// the current trip reads (null: row 0).
struct SharedBuffer {
  Value buffer;
  Value rowOffset;
};
/// Each tile.load kept in shared memory, with its buffer.
using SharedOperandMap = llvm::DenseMap<Operation *, SharedBuffer>;
constexpr int64_t kSharedOperandPad = 8;

/// A new shared buffer for `slots` copies of a tile of `type`'s shape, one
/// below the other, rows padded by kSharedOperandPad elements.
Value allocSharedOperand(OpBuilder &b, Location loc, RankedTensorType type,
                         int64_t slots = 1);

/// Copies the tile that `load` reads, at `indices` inside `bounds` of
/// `source` (the load's own operands, or clones of them), into `buffer`
/// from row `rowOffset` (null: 0) with cp.async, each thread taking its
/// 16-byte runs of a coalesced layout; runs the box cuts or that are not
/// aligned are read element by element (the padding value outside the
/// box). Each cp.async is committed where it is issued, unless `commit` is
/// false (the caller then commits the group); the caller waits. With
/// `leadingBarrier`, a barrier first (readers of an earlier trip through a
/// loop are done with the buffer).
void copyTileToShared(OpBuilder &b, Location loc, tile::LoadOp load,
                      Value source, ValueRange indices, ValueRange bounds,
                      Value buffer, Value rowOffset, bool leadingBarrier,
                      bool commit = true);

/// The first op in `load`'s block that reads its tile (directly or through
/// a tile.trans), when every reader is in that block; null otherwise.
Operation *firstReaderInBlock(tile::LoadOp load);

/// Copies the kept loads (keepsInSharedMemory) of each scf.for body of
/// `kernel` whose addresses change with the induction variable `stages` - 1
/// trips ahead (at least one), into buffers of `stages` slots, and records
/// them in `sharedOperands` (SIMTPrefetch.cpp). Runs before the conversion;
/// the conversion then only drops those loads' register tiles.
void prefetchKeptLoads(func::FuncOp kernel, SharedOperandMap &sharedOperands,
                       int64_t stages = 2);

/// Loads the register tiles of each scf.for body of `kernel` whose
/// addresses change with the induction variable one trip ahead, as
/// loop-carried values (SIMTPrefetch.cpp). Runs before prefetchKeptLoads.
void prefetchRegisterLoads(func::FuncOp kernel);

/// True when `load`'s tile is read only by 16-bit dots, as their A or B
/// operand, itself or through a tile.trans, is at least 8 KiB and would be
/// held whole by several warps: it stays in shared memory, and the dots
/// read their fragments from there (ldmatrix) instead of every warp keeping
/// the whole tile in registers.
bool keepsInSharedMemory(tile::LoadOp load);

/// True when `convert`'s result is read only by 16-bit dots, as their A or
/// B operand, is at least 8 KiB and would be held whole by several warps
/// (a computed operand that kda-assign-tile-layouts spread over the warps):
/// the source registers are stored once into a padded shared buffer, and
/// the dots read their fragments from there (ldmatrix).
bool keepsInSharedMemory(tile::ConvertLayoutOp convert);

/// Checks, before any rewriting, that an op has a per-thread lowering with
/// the layouts it has (each emits the op's diagnostic on failure).
LogicalResult checkDotOnRegisters(Operation *dot);
LogicalResult checkBroadcastOnRegisters(Operation *broadcast);
LogicalResult checkReduceOnRegisters(Operation *reduce);
LogicalResult checkScanOnRegisters(Operation *scan);

/// Patterns of the per-op lowerings, each in its own file.
void populateSIMTMemoryPatterns(const TypeConverter &converter,
                                RewritePatternSet &patterns,
                                SharedOperandMap &sharedOperands);
void populateSIMTDotPatterns(const TypeConverter &converter,
                             RewritePatternSet &patterns,
                             const SharedOperandMap &sharedOperands);
void populateSIMTScanPatterns(const TypeConverter &converter,
                              RewritePatternSet &patterns);
/// With `warpShuffles`, layout changes within each warp go by
/// shfl.sync.idx (matchWarpShuffles), else through shared memory.
void populateSIMTRegisterPatterns(const TypeConverter &converter,
                                  RewritePatternSet &patterns,
                                  bool warpShuffles);
void populateSIMTInversePatterns(const TypeConverter &converter,
                                 RewritePatternSet &patterns);

} // namespace mlir::kda::simt

#endif // KDA_LIB_CONVERSION_TILETOSIMT_SIMTLOWERING_H
