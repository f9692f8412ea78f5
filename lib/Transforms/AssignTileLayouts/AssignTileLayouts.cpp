//===- AssignTileLayouts.cpp - choose register layouts for tiles ----------===//
//
// kda-assign-tile-layouts: gives every tile of a kernel a #tile.dist
// layout, so that convert-tile-to-simt can run it on registers.
//
// Dots are the anchors: an f32 accumulator of M x N takes the mma.sync
// accumulator layout with the kernel's warps along M (as many as M / 16
// allows, the rest along N), its operands the A and B operand layouts of
// the same warp split. In a kernel where a dot's B operand is computed
// from a dot's result (a recurrence), the warps go along N instead, so
// that each warp keeps its own columns of the whole chain. Layouts then spread until nothing changes:
// forward (an elementwise result and a scan take their operands' layout, a reduction
// the slice of its input's, a broadcast its input's with each new
// dimension on lanes the input leaves free, a transpose the permuted
// input's, a loop result its initial value's) and backward (a value nobody
// has placed yet takes the layout its first user asks for: an elementwise
// op or a scan the result's, a dot its operand layout, a broadcast the
// slice of the result's, a transpose the permuted result's, a loop its
// iter_arg's). Tiles still without a layout take a coalesced layout (16
// bytes per lane along the last dimension), loads first, then other
// computed tiles, and splats, iotas, triangular masks and empty tiles
// (made in any layout for free) last, so that those take their users'
// layouts: a loop-carried accumulator that starts as zeros, the layout of
// what each trip adds to it. Spreading resumes after each. Where a use
// needs another layout than its operand has, a tile.convert_layout goes
// before it.
//
// f32 dots (tf32 or tf32x3 precision) take the layouts of the tf32
// m16n8k8 mma.sync; the inputs and results of tile.unit_lower_inverse
// take no layout from the op (convert-tile-to-simt solves them in shared
// memory), only from their producers and users.
//
// Kernels it cannot place are left alone, to the shared-memory mapping:
// those with a tile.scan of 16-bit elements, dots of f32 operands at ieee precision, tiles of
// rank above 2 or of sizes that are not powers of 2, and ops it does not
// know on tiles.
//
//===----------------------------------------------------------------------===//

#include "kda/Transforms/Passes.h"
#include "kda/Dialect/Tile/TileOps.h"
#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <functional>

namespace mlir::kda {
#define GEN_PASS_DEF_ASSIGNTILELAYOUTSPASS
#include "Transforms/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;
using namespace mlir::kda;
using tile::DistLayoutAttr;

namespace {

constexpr int64_t kWarpSize = DistLayoutAttr::kWarpSize;

RankedTensorType getTileType(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

bool isElementwise(Operation *op) {
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
         !isa<arith::ConstantOp>(op) && op->getNumRegions() == 0;
}

/// The layouts of a dot: the accumulator's, A's and B's.
struct DotLayouts {
  DistLayoutAttr acc, a, b;
};

DotLayouts getDotLayouts(tile::DotOp dot, int64_t numWarps,
                         bool warpsAlongColumns, bool kPacked) {
  MLIRContext *ctx = dot.getContext();
  int64_t m = getTileType(dot.getAcc()).getDimSize(0);
  int64_t n = getTileType(dot.getAcc()).getDimSize(1);
  int64_t k = getTileType(dot.getA()).getDimSize(1);
  int64_t warpsM = 1, warpsN = 1;
  auto splitRows = [&] {
    while (warpsM * warpsN * 2 <= numWarps && m % (16 * warpsM * 2) == 0)
      warpsM *= 2;
  };
  auto splitColumns = [&] {
    while (warpsM * warpsN * 2 <= numWarps && n % (8 * warpsN * 2) == 0)
      warpsN *= 2;
  };
  if (warpsAlongColumns) {
    splitColumns();
    splitRows();
  } else {
    splitRows();
    splitColumns();
  }
  DotLayouts layouts;
  layouts.acc = DistLayoutAttr::getMmaAccumulator(ctx, m, n, warpsM, warpsN);
  // f32 operands go to the tf32 m16n8k8 mma.sync (one element per
  // register, K steps of 8), 16-bit ones to m16n8k16 (pairs, steps of 16).
  bool tf32 = getTileType(dot.getA()).getElementType().isF32();
  if (tf32 && kPacked) {
    layouts.a = DistLayoutAttr::getMmaOperandA32KPacked(ctx, m, k, warpsM);
    layouts.b =
        DistLayoutAttr::getMmaOperandB32KPacked(ctx, k, n, warpsN, warpsM);
    return layouts;
  }
  layouts.a = tf32 ? DistLayoutAttr::getMmaOperandA32(ctx, m, k, warpsM)
                   : DistLayoutAttr::getMmaOperandA16(ctx, m, k, warpsM);
  // B's warps along N take the warp id bits above those along M, as in the
  // accumulator.
  int64_t pair = tf32 ? 1 : 2;
  layouts.b = DistLayoutAttr::get(
      ctx, {1, warpsN}, {k / (8 * pair), n / (8 * warpsN)}, {2, 1}, {4, 8},
      {pair, 1}, {1, 4}, {1, warpsM});
  return layouts;
}

/// True when `value` is computed from a dot's result: directly, through
/// elementwise ops, transposes, broadcasts and branches, or through a
/// loop-carried value that a dot updates (a recurrence such as the state scan's
/// S -> w . rd(S) -> kg^T . rd(u - w . S) -> S).
bool isComputedFromDot(Value value) {
  llvm::DenseSet<Value> seen;
  std::function<bool(Value)> fromDot = [&](Value v) -> bool {
    if (!getTileType(v) || !seen.insert(v).second)
      return false;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!loop || arg.getArgNumber() == 0)
        return false;
      unsigned i = arg.getArgNumber() - 1;
      return fromDot(loop.getYieldedValues()[i]) ||
             fromDot(loop.getInitArgs()[i]);
    }
    Operation *def = v.getDefiningOp();
    if (isa<tile::DotOp>(def))
      return true;
    if (auto loop = dyn_cast<scf::ForOp>(def))
      return fromDot(
          loop.getYieldedValues()[cast<OpResult>(v).getResultNumber()]);
    if (auto branch = dyn_cast<scf::IfOp>(def)) {
      unsigned i = cast<OpResult>(v).getResultNumber();
      return fromDot(branch.thenYield().getOperand(i)) ||
             (branch.elseBlock() &&
              fromDot(branch.elseYield().getOperand(i)));
    }
    if (isElementwise(def) ||
        isa<tile::TransOp, tile::BroadcastOp, tile::ConvertLayoutOp>(def))
      return llvm::any_of(def->getOperands(), fromDot);
    return false;
  };
  return fromDot(value);
}

/// True when the B operand of some dot of `kernel` is computed from a dot's
/// result (isComputedFromDot).
bool hasChainedB(func::FuncOp kernel) {
  bool chained = false;
  kernel.walk(
      [&](tile::DotOp dot) { chained |= isComputedFromDot(dot.getB()); });
  return chained;
}

/// True when a tf32 dot takes K-packed operands
/// (DistLayoutAttr::getMmaOperandA32KPacked): when neither is computed
/// from a dot's result, so that both come from memory, where K-packed
/// registers are one run per row, and none is an accumulator, which a
/// warp turns into a natural-order operand without shared memory.
bool takesKPackedOperands(tile::DotOp dot) {
  return getTileType(dot.getA()).getElementType().isF32() &&
         getTileType(dot.getA()).getDimSize(1) % 8 == 0 &&
         !isComputedFromDot(dot.getA()) && !isComputedFromDot(dot.getB());
}

/// True when the kernel's dots split their warps along N (columns) first:
/// when a B operand is chained (hasChainedB) and every dot has columns
/// for all warps. Each warp then computes its own columns of the whole
/// chain, and chained results never cross warps; the A operands, which
/// every warp reads whole, come from shared memory (keepsInSharedMemory).
bool splitsWarpsAlongColumns(func::FuncOp kernel, int64_t numWarps) {
  bool allColumns = true;
  kernel.walk([&](tile::DotOp dot) {
    allColumns &= getTileType(dot.getAcc()).getDimSize(1) % (8 * numWarps) == 0;
  });
  return numWarps > 1 && allColumns && hasChainedB(kernel);
}

/// `layout` with its dimensions permuted: dimension i of the result is
/// dimension p[i] of `layout` (with `inverse`, dimension p[i] of the result
/// is dimension i of `layout`).
DistLayoutAttr permuteLayout(DistLayoutAttr layout, ArrayRef<int64_t> p,
                             bool inverse) {
  int64_t rank = layout.getRank();
  auto apply = [&](ArrayRef<int64_t> values) {
    SmallVector<int64_t> out(rank);
    for (int64_t i = 0; i < rank; ++i) {
      if (inverse)
        out[p[i]] = values[i];
      else
        out[i] = values[p[i]];
    }
    return out;
  };
  return DistLayoutAttr::get(
      layout.getContext(), apply(layout.getWarps()), apply(layout.getBatch()),
      apply(layout.getOuter()), apply(layout.getLanes()),
      apply(layout.getElems()), apply(layout.getLaneStrides()),
      apply(layout.getWarpStrides()));
}

/// The layout of a tile.broadcast's input when its result has `result`:
/// the slice of the broadcast dimensions.
DistLayoutAttr getBroadcastInputLayout(tile::BroadcastOp broadcast,
                                       DistLayoutAttr result) {
  SmallVector<int64_t> dims(broadcast.getDims());
  llvm::sort(dims, std::greater<int64_t>());
  for (int64_t d : dims)
    result = result.getSlice(d);
  return result;
}

/// The layout of a broadcast's result that keeps its input's layout on the
/// input's dimensions and spreads each new dimension over the lanes no
/// input dimension takes (the lowest free lane id bits, as many as its size
/// needs and the free bits allow), the rest of it in registers: the
/// inverse of a slice that moves no element between threads. Null where a
/// new dimension's size is not a power of 2.
DistLayoutAttr getBroadcastResultLayout(tile::BroadcastOp broadcast,
                                        DistLayoutAttr input) {
  RankedTensorType type = getTileType(broadcast.getResult());
  SmallVector<int64_t> dims(broadcast.getDims());
  llvm::sort(dims);
  SmallVector<int64_t> warps(input.getWarps()), batch(input.getBatch()),
      outer(input.getOuter()), lanes(input.getLanes()),
      elems(input.getElems()), laneStrides(input.getLaneStrides()),
      warpStrides(input.getWarpStrides());
  uint64_t usedLaneBits = 0;
  for (auto [count, stride] : llvm::zip(lanes, laneStrides))
    usedLaneBits |= (uint64_t(count) - 1) * uint64_t(stride);
  for (int64_t d : dims) {
    int64_t size = type.getDimSize(d);
    if (size <= 0 || !llvm::isPowerOf2_64(size))
      return {};
    // The lowest free lane bit, and the free bits just above it.
    int64_t low = 0;
    while (low < llvm::Log2_64(kWarpSize) && (usedLaneBits >> low & 1))
      ++low;
    int64_t count = 1;
    while (count < size && low + llvm::Log2_64(count) <
                               static_cast<int64_t>(llvm::Log2_64(kWarpSize)) &&
           !(usedLaneBits >> (low + llvm::Log2_64(count)) & 1))
      count *= 2;
    int64_t stride = int64_t(1) << std::min<int64_t>(
                         low, llvm::Log2_64(kWarpSize) - 1);
    usedLaneBits |= (uint64_t(count) - 1) * uint64_t(stride);
    warps.insert(warps.begin() + d, 1);
    batch.insert(batch.begin() + d, 1);
    outer.insert(outer.begin() + d, 1);
    lanes.insert(lanes.begin() + d, count);
    elems.insert(elems.begin() + d, size / count);
    laneStrides.insert(laneStrides.begin() + d, count > 1 ? stride : 1);
    warpStrides.insert(warpStrides.begin() + d, 1);
  }
  return DistLayoutAttr::get(broadcast.getContext(), warps, batch, outer,
                             lanes, elems, laneStrides, warpStrides);
}

/// The largest tile (in bytes) a use reads again from memory in the layout
/// it needs rather than have it converted: the reload hits the cache, and
/// one or two accesses per thread cost less than a trip through shared
/// memory with two barriers.
constexpr int64_t kReloadedTileBytes = 4096;
/// The most ops (a load or splat and the casts and broadcasts on it) made
/// again for one use.
constexpr int64_t kRematerializedOps = 3;

/// True when `op` or an op nested in it may write memory (ops that do not
/// say count as writing).
bool mayWriteMemory(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(nested))
      return effects.hasEffect<MemoryEffects::Write>()
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
               ? WalkResult::advance()
               : WalkResult::interrupt();
  });
  return result.wasInterrupted();
}

/// True when a load placed before `user` reads what `load` read: `user`
/// is in `load`'s block or nested in an op of it, and nothing from `load`
/// to there may write memory.
bool readsSameBefore(tile::LoadOp load, Operation *user) {
  Operation *ancestor = load->getBlock()->findAncestorOpInBlock(*user);
  if (!ancestor || !load->isBeforeInBlock(ancestor))
    return false;
  for (Operation *op = load->getNextNode(); op != ancestor;
       op = op->getNextNode())
    if (mayWriteMemory(op))
      return false;
  return ancestor == user || !mayWriteMemory(ancestor);
}

/// True when `op` makes a tile that is as cheap in any layout: a splat, an
/// empty tile, an iota or a splat constant.
bool isMadeForFree(Operation *op) {
  if (isa<tile::SplatOp, tensor::EmptyOp, tile::IotaOp, tile::TriMaskOp>(op))
    return true;
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return isa<SplatElementsAttr>(constant.getValue());
  return false;
}

/// True when `v`, read by `user`, is cheaper made again in another layout
/// than converted: a splat, empty tile, iota or splat constant; a load of
/// at most kReloadedTileBytes that nothing may have overwritten by then;
/// or a one-operand elementwise op (a cast, say) or a broadcast of such a
/// value, kRematerializedOps ops in all.
bool isRematerializable(Value v, Operation *user, int64_t ops = 1) {
  Operation *def = v.getDefiningOp();
  if (!def || ops > kRematerializedOps)
    return false;
  if (isMadeForFree(def))
    return true;
  if (auto load = dyn_cast<tile::LoadOp>(def)) {
    RankedTensorType type = getTileType(load.getResult());
    return type.getNumElements() *
                   llvm::divideCeil(type.getElementTypeBitWidth(), 8) <=
               kReloadedTileBytes &&
           readsSameBefore(load, user);
  }
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(def))
    return isRematerializable(broadcast.getInput(), user, ops + 1);
  if (isElementwise(def) && def->getNumOperands() == 1 &&
      def->getNumResults() == 1)
    return isRematerializable(def->getOperand(0), user, ops + 1);
  return false;
}

/// `v` made again in `layout` at `b`'s insertion point, its producers
/// too (isRematerializable says which): nothing moves between threads.
Value rematerialize(OpBuilder &b, Value v, DistLayoutAttr layout) {
  Operation *def = v.getDefiningOp();
  IRMapping mapping;
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(def))
    mapping.map(broadcast.getInput(),
                rematerialize(b, broadcast.getInput(),
                              getBroadcastInputLayout(broadcast, layout)));
  else if (isElementwise(def))
    mapping.map(def->getOperand(0),
                rematerialize(b, def->getOperand(0), layout));
  Operation *copy = b.clone(*def, mapping);
  RankedTensorType type = getTileType(v);
  auto neededType =
      RankedTensorType::get(type.getShape(), type.getElementType(), layout);
  copy->getResult(0).setType(neededType);
  if (auto constant = dyn_cast<arith::ConstantOp>(copy))
    constant.setValueAttr(
        cast<DenseElementsAttr>(constant.getValue()).reshape(neededType));
  return copy->getResult(0);
}

/// The layout assignment of one kernel.
class LayoutAssignment {
public:
  LayoutAssignment(func::FuncOp kernel, int64_t numWarps,
                   bool duplicateSmallOperands, bool scanLayouts)
      : kernel(kernel), numWarps(numWarps),
        duplicateSmallOperands(duplicateSmallOperands),
        scanLayouts(scanLayouts) {}

  /// Why the kernel cannot run on registers, or an empty string.
  std::string findObstacle();
  void run();

private:
  /// The layout the use of `operand` by its owner needs, if it says. With
  /// `spreading`, the layout spreading backward gives the operand's
  /// producer: none for a computed A operand that every warp reads whole
  /// (isComputedSharedA), which is then computed in a coalesced layout and
  /// converted at the dot.
  DistLayoutAttr requiredLayout(OpOperand &operand, bool spreading = false);
  /// True for a dot's A operand, with the warps along N (every warp reads
  /// all of A), that is computed rather than loaded (itself or through a
  /// tile.trans): spread over all warps, it is computed once instead of in
  /// every warp, and reaches the dot through a tile.convert_layout, which
  /// convert-tile-to-simt keeps in shared memory for the dot's ldmatrix.
  /// With duplicateSmallOperands, not when its copies in the other warps
  /// add up to less than 8 KiB: such an operand is computed in every warp,
  /// in the dot's layout, with no conversion (and no barriers).
  bool isComputedSharedA(OpOperand &operand) const;
  /// Sets `v`'s layout if it has none; true if it did.
  bool place(Value v, DistLayoutAttr layout);
  bool spreadForward(Operation *op);
  bool spreadBackward(Operation *op);
  void materialize();

  func::FuncOp kernel;
  int64_t numWarps;
  /// The pass's duplicate-small-operands (isComputedSharedA).
  bool duplicateSmallOperands;
  /// The pass's scan-layouts: scans anchor a layout (getScanLayout).
  bool scanLayouts;
  bool warpsAlongColumns = false;
  llvm::DenseMap<Value, DistLayoutAttr> layouts;
  llvm::DenseMap<Operation *, DotLayouts> dots;
  SmallVector<Operation *> ops;
};

std::string LayoutAssignment::findObstacle() {
  std::string reason;
  auto tileOk = [&](Value v) {
    RankedTensorType type = getTileType(v);
    if (!type)
      return true;
    if (type.getRank() < 1 || type.getRank() > 2 || !type.hasStaticShape() ||
        !llvm::all_of(type.getShape(),
                      [](int64_t s) { return llvm::isPowerOf2_64(s); })) {
      reason = "a tile of shape other than 1-D or 2-D powers of 2";
      return false;
    }
    if (type.getElementType().isIndex()) {
      reason = "an index tile";
      return false;
    }
    return true;
  };
  kernel.walk([&](Operation *op) {
    if (!reason.empty())
      return WalkResult::interrupt();
    bool touchesTiles = llvm::any_of(op->getOperands(), getTileType) ||
                        llvm::any_of(op->getResults(), getTileType);
    for (Region &region : op->getRegions())
      for (BlockArgument arg : region.getArguments())
        touchesTiles |= static_cast<bool>(getTileType(arg));
    if (!touchesTiles)
      return WalkResult::advance();
    if (auto dot = dyn_cast<tile::DotOp>(op)) {
      Type element = getTileType(dot.getA()).getElementType();
      int64_t m = getTileType(dot.getAcc()).getDimSize(0);
      int64_t n = getTileType(dot.getAcc()).getDimSize(1);
      int64_t k = getTileType(dot.getA()).getDimSize(1);
      bool sixteenBit = element.isBF16() || element.isF16();
      bool tf32 = element.isF32() &&
                  dot.getPrecision() != tile::Precision::ieee;
      if (!(sixteenBit || tf32) || m % 16 || n % 8 ||
          k % (sixteenBit ? 16 : 8)) {
        reason = "a dot that is not a 16-bit or tf32 mma.sync shape";
        return WalkResult::interrupt();
      }
    } else if (!isElementwise(op) &&
               !isa<arith::ConstantOp, tile::LoadOp, tile::StoreOp,
                    tile::SplatOp, tile::IotaOp, tile::TriMaskOp,
                    tile::BroadcastOp, tile::ReduceOp, tile::ScanOp,
                    tile::TransOp,
                    tile::UnitLowerInverseOp, tensor::EmptyOp, scf::ForOp,
                    scf::IfOp, scf::YieldOp>(op)) {
      reason = "'" + op->getName().getStringRef().str() + "' on tiles";
      return WalkResult::interrupt();
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      if (getTileType(constant) &&
          !isa<SplatElementsAttr>(constant.getValue())) {
        reason = "a constant tile that is not a splat";
        return WalkResult::interrupt();
      }
    if (auto scan = dyn_cast<tile::ScanOp>(op)) {
      if (getTileType(scan).getElementType().getIntOrFloatBitWidth() != 32) {
        reason = "a tile.scan of other than 32-bit elements";
        return WalkResult::interrupt();
      }
    }
    if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
      RankedTensorType type = getTileType(reduce.getInput());
      if (type.getRank() != 2 ||
          type.getElementType().getIntOrFloatBitWidth() != 32) {
        reason = "a reduction of other than a 2-D tile of 32-bit elements";
        return WalkResult::interrupt();
      }
    }
    for (Value v : op->getOperands())
      if (!tileOk(v))
        return WalkResult::interrupt();
    for (Value v : op->getResults())
      if (!tileOk(v))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return reason;
}

bool LayoutAssignment::place(Value v, DistLayoutAttr layout) {
  if (!layout || !getTileType(v) || layouts.count(v))
    return false;
  layouts[v] = layout;
  return true;
}

bool LayoutAssignment::isComputedSharedA(OpOperand &operand) const {
  auto dot = dyn_cast<tile::DotOp>(operand.getOwner());
  if (!warpsAlongColumns || !dot || operand.getOperandNumber() != 0 ||
      getTileType(dot.getA()).getElementType().isF32())
    return false;
  Operation *def = operand.get().getDefiningOp();
  if (auto trans = dyn_cast_or_null<tile::TransOp>(def))
    def = trans.getInput().getDefiningOp();
  if (isa_and_nonnull<tile::LoadOp>(def))
    return false;
  // With duplicateSmallOperands, an operand whose copies in the other
  // warps add up to less than 8 KiB is computed in every warp instead.
  RankedTensorType type = getTileType(dot.getA());
  int64_t bytes = type.getNumElements() *
                  llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  return !duplicateSmallOperands || bytes * (numWarps - 1) >= 8192;
}

DistLayoutAttr LayoutAssignment::requiredLayout(OpOperand &operand,
                                                bool spreading) {
  Operation *owner = operand.getOwner();
  unsigned index = operand.getOperandNumber();
  auto known = [&](Value v) { return layouts.lookup(v); };
  if (auto dot = dyn_cast<tile::DotOp>(owner)) {
    if (spreading && isComputedSharedA(operand))
      return {};
    const DotLayouts &d = dots.find(owner)->second;
    return index == 0 ? d.a : index == 1 ? d.b : d.acc;
  }
  if (isElementwise(owner) || isa<tile::ScanOp>(owner)) {
    DistLayoutAttr result = known(owner->getResult(0));
    // A select's i1 condition, a compare's operands: all of the result's
    // shape, so all in the result's layout.
    return result;
  }
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(owner)) {
    DistLayoutAttr result = known(broadcast.getResult());
    return result ? getBroadcastInputLayout(broadcast, result)
                  : DistLayoutAttr();
  }
  if (auto trans = dyn_cast<tile::TransOp>(owner)) {
    DistLayoutAttr result = known(trans.getResult());
    if (!result)
      return {};
    return permuteLayout(result, tile::getTransPermutation(trans),
                         /*inverse=*/true);
  }
  if (auto inverse = dyn_cast<tile::UnitLowerInverseOp>(owner)) {
    // The inputs may have any layout; an init has its result's type.
    unsigned numInputs = inverse.getInputs().size();
    if (index < numInputs)
      return {};
    return known(inverse.getResult(index - numInputs));
  }
  if (auto yield = dyn_cast<scf::YieldOp>(owner)) {
    Operation *parent = yield->getParentOp();
    if (auto loop = dyn_cast<scf::ForOp>(parent))
      return known(loop.getRegionIterArgs()[index]);
    if (auto branch = dyn_cast<scf::IfOp>(parent))
      return known(branch.getResult(index));
    return {};
  }
  if (auto loop = dyn_cast<scf::ForOp>(owner)) {
    if (index < 3)
      return {};
    return known(loop.getRegionIterArgs()[index - 3]);
  }
  return {};
}

bool LayoutAssignment::spreadForward(Operation *op) {
  bool changed = false;
  if (auto dot = dyn_cast<tile::DotOp>(op))
    return place(dot.getResult(), dots.find(op)->second.acc);
  if (isElementwise(op) || isa<tile::ScanOp>(op)) {
    for (Value operand : op->getOperands())
      if (DistLayoutAttr layout = layouts.lookup(operand)) {
        for (Value result : op->getResults())
          changed |= place(result, layout);
        break;
      }
    return changed;
  }
  if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
    if (DistLayoutAttr input = layouts.lookup(reduce.getInput()))
      return place(reduce.getResult(), input.getSlice(reduce.getDim()));
    return false;
  }
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(op)) {
    if (DistLayoutAttr input = layouts.lookup(broadcast.getInput()))
      return place(broadcast.getResult(),
                   getBroadcastResultLayout(broadcast, input));
    return false;
  }
  if (auto trans = dyn_cast<tile::TransOp>(op)) {
    if (DistLayoutAttr input = layouts.lookup(trans.getInput())) {
      return place(trans.getResult(),
                   permuteLayout(input, tile::getTransPermutation(trans),
                                 /*inverse=*/false));
    }
    return false;
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    for (auto [init, arg, result] :
         llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                   loop.getResults())) {
      DistLayoutAttr layout = layouts.lookup(arg);
      if (!layout)
        layout = layouts.lookup(init);
      // A value the loop carries from a dot: the layout it comes back in.
      if (!layout)
        layout = layouts.lookup(
            loop.getYieldedValues()[arg.getArgNumber() - 1]);
      changed |= place(arg, layout);
      changed |= place(result, layout);
    }
    return changed;
  }
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    for (auto [i, result] : llvm::enumerate(branch.getResults()))
      if (!layouts.count(result))
        changed |= place(result, layouts.lookup(branch.thenYield().getOperand(i)));
    return changed;
  }
  return false;
}

bool LayoutAssignment::spreadBackward(Operation *op) {
  bool changed = false;
  for (OpOperand &operand : op->getOpOperands())
    if (!layouts.count(operand.get()) && getTileType(operand.get()))
      changed |= place(operand.get(),
                       requiredLayout(operand, /*spreading=*/true));
  // A loop's iter_arg and result follow a yielded value's layout.
  if (auto loop = dyn_cast<scf::ForOp>(op))
    for (auto [arg, result] :
         llvm::zip(loop.getRegionIterArgs(), loop.getResults()))
      if (DistLayoutAttr layout = layouts.lookup(result))
        changed |= place(arg, layout);
  return changed;
}

void LayoutAssignment::run() {
  warpsAlongColumns = splitsWarpsAlongColumns(kernel, numWarps);
  kernel.walk([&](Operation *op) {
    if (op != kernel.getOperation())
      ops.push_back(op);
    if (auto dot = dyn_cast<tile::DotOp>(op))
      dots[op] = getDotLayouts(dot, numWarps, warpsAlongColumns,
                               takesKPackedOperands(dot));
    // A scan anchors a layout that keeps its dimension within each warp.
    if (auto scan = dyn_cast<tile::ScanOp>(op); scan && scanLayouts)
      place(scan.getResult(), tile::getScanLayout(getTileType(scan),
                                                  scan.getDim(), numWarps));
  });
  while (true) {
    // Forward until nothing changes, then one backward sweep, and again:
    // a value takes its producer's layout before any user's, so that a
    // conversion goes after an elementwise op rather than before it (after
    // a truncf, on the narrower value).
    bool changed = true;
    while (changed) {
      changed = false;
      bool forward = true;
      while (forward) {
        forward = false;
        for (Operation *op : ops)
          forward |= spreadForward(op);
        changed |= forward;
      }
      for (Operation *op : llvm::reverse(ops))
        changed |= spreadBackward(op);
    }
    // The first tile still without a layout takes a coalesced one: a
    // load's result first, then any other computed tile, and splats,
    // iotas, masks and empty tiles (made in any layout for free) only when
    // nothing else is left, so that they take their users' layouts (a
    // loop-carried accumulator that starts as zeros, the layout of what
    // the loop adds to it, not a coalesced one that every trip would
    // convert to); block arguments with the last group.
    Value unplaced;
    enum Seeds { loads, madeAtCost, any };
    for (Seeds seeds : {loads, madeAtCost, any}) {
      for (Operation *op : ops) {
        if (seeds == any)
          for (Region &region : op->getRegions())
            for (BlockArgument arg : region.getArguments())
              if (!unplaced && getTileType(arg) && !layouts.count(arg))
                unplaced = arg;
        bool candidate = seeds == loads ? isa<tile::LoadOp>(op)
                         : seeds == madeAtCost ? !isMadeForFree(op)
                                               : true;
        if (candidate)
          for (Value result : op->getResults())
            if (!unplaced && getTileType(result) && !layouts.count(result))
              unplaced = result;
        if (unplaced)
          break;
      }
      if (unplaced)
        break;
    }
    if (!unplaced)
      break;
    layouts[unplaced] = tile::getCoalescedLayout(getTileType(unplaced), numWarps);
  }
  materialize();
}

void LayoutAssignment::materialize() {
  auto withLayout = [&](Value v) {
    RankedTensorType type = getTileType(v);
    return RankedTensorType::get(type.getShape(), type.getElementType(),
                                 layouts.lookup(v));
  };
  // Conversions where a use needs another layout, decided before types
  // change (requiredLayout reads the assignment, not the types).
  SmallVector<std::pair<OpOperand *, DistLayoutAttr>> conversions;
  for (Operation *op : ops)
    for (OpOperand &operand : op->getOpOperands()) {
      if (!getTileType(operand.get()))
        continue;
      DistLayoutAttr needed = requiredLayout(operand);
      if (needed && needed != layouts.lookup(operand.get()))
        conversions.push_back({&operand, needed});
    }
  for (Operation *op : ops) {
    for (Value result : op->getResults())
      if (getTileType(result))
        result.setType(withLayout(result));
    for (Region &region : op->getRegions())
      for (BlockArgument arg : region.getArguments())
        if (getTileType(arg))
          arg.setType(withLayout(arg));
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
        if (dense.getType() != constant.getType())
          constant.setValueAttr(
              dense.reshape(cast<ShapedType>(constant.getType())));
  }
  for (auto [operand, needed] : conversions) {
    OpBuilder b(operand->getOwner());
    // A splat (or a tensor.empty, such as a tile.unit_lower_inverse init),
    // a small load, and casts and broadcasts of those are made again in
    // the layout the use needs: nothing moves between threads.
    if (isRematerializable(operand->get(), operand->getOwner())) {
      operand->set(rematerialize(b, operand->get(), needed));
      continue;
    }
    RankedTensorType type = getTileType(operand->get());
    auto converted = tile::ConvertLayoutOp::create(
        b, operand->getOwner()->getLoc(),
        RankedTensorType::get(type.getShape(), type.getElementType(), needed),
        operand->get());
    operand->set(converted);
  }
}

struct AssignTileLayoutsPass
    : public kda::impl::AssignTileLayoutsPassBase<AssignTileLayoutsPass> {
  using Base::Base;
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!kernel->hasAttr(tile::TileDialect::getKernelAttrName()) ||
          tile::hasLaidOutTiles(kernel))
        continue;
      auto tuning = tile::TuningAttr::lookup(kernel);
      int64_t numThreads = tuning ? tuning.getThreads() : numThreadsDefault;
      if (numThreads % kWarpSize != 0) {
        if (remarks)
          kernel.emitRemark()
              << "@" << kernel.getName()
              << " stays on the shared-memory mapping: its threads ("
              << numThreads << ") are not a whole number of warps";
        continue;
      }
      if (onlyRequested && !(tuning && tuning.requestsRegisters())) {
        if (remarks)
          kernel.emitRemark() << "@" << kernel.getName()
                              << " stays on the shared-memory mapping: its "
                                 "tuning does not ask for registers "
                                 "(only-requested)";
        continue;
      }
      if (onlyRecurrences &&
          !splitsWarpsAlongColumns(kernel, numThreads / kWarpSize)) {
        if (remarks)
          kernel.emitRemark() << "@" << kernel.getName()
                              << " stays on the shared-memory mapping: it is "
                                 "not a recurrence (only-recurrences)";
        continue;
      }
      LayoutAssignment assignment(kernel, numThreads / kWarpSize,
                                  duplicateSmallOperands, scanLayouts);
      std::string obstacle = assignment.findObstacle();
      if (!obstacle.empty()) {
        if (remarks)
          kernel.emitRemark() << "@" << kernel.getName()
                              << " stays on the shared-memory mapping: it has "
                              << obstacle;
        continue;
      }
      assignment.run();
      if (remarks)
        kernel.emitRemark() << "@" << kernel.getName() << " runs on registers";
    }
  }
};

} // namespace
