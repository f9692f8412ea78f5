//===- SIMTMemoryOrder.cpp - barriers between dependent global accesses ---===//
//
// A tile program is sequential: a tile.load sees what an earlier
// tile.store of the program wrote, and a store does not overwrite what an
// earlier load has yet to read. On registers, the threads that write an
// element are not in general those that later read it (the two tiles may
// have different layouts, or a load may be staged through shared memory),
// so such pairs of accesses to one buffer need a barrier of the thread
// block between them. The shared-memory mapping of convert-tile-to-gpu
// orders its accesses to one kernel argument the same way (Barriers.h).
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::kda;

namespace {

/// One access to memory that no barrier has yet separated from later ones.
struct Access {
  /// The buffer: the value the accessed memref is a view of.
  Value buffer;
  bool write = false;
  /// The op that accesses it.
  Operation *op = nullptr;
  /// When the access is that of an earlier trip of a loop: the loop (any
  /// loop: scf.for, scf.while, ...).
  Operation *earlierTripOf = nullptr;
};

/// The value `view` is a view of, through view-like ops (subviews, casts).
Value rootBuffer(Value view) {
  while (auto viewLike = view.getDefiningOp<ViewLikeOpInterface>())
    view = viewLike.getViewSource();
  return view;
}

/// An index as a sum of values times constant coefficients plus a
/// constant.
struct LinearIndex {
  llvm::SmallDenseMap<Value, int64_t, 4> terms;
  int64_t constant = 0;

  void add(const LinearIndex &other, int64_t times) {
    for (auto [value, coefficient] : other.terms)
      terms[value] += times * coefficient;
    constant += times * other.constant;
  }
  /// The coefficient of `value` (0 when it has none).
  int64_t coefficient(Value value) const { return terms.lookup(value); }
  /// True if the two sums have the same coefficients, except that of
  /// `except`.
  bool sameTerms(const LinearIndex &other, Value except = {}) const {
    auto covered = [&](const LinearIndex &x, const LinearIndex &y) {
      for (auto [value, coefficient] : x.terms)
        if (value != except && coefficient != y.coefficient(value))
          return false;
      return true;
    };
    return covered(*this, other) && covered(other, *this);
  }
};

/// `index` through arith.addi, arith.subi and arith.muli by a constant
/// (a few levels deep); other values are terms of their own.
LinearIndex linearize(Value index, int depth = 0) {
  LinearIndex result;
  if (std::optional<int64_t> c = getConstantIntValue(index)) {
    result.constant = *c;
    return result;
  }
  Operation *def = index.getDefiningOp();
  if (depth < 8 && isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def)) {
    result.add(linearize(def->getOperand(0), depth + 1), 1);
    result.add(linearize(def->getOperand(1), depth + 1),
               isa<arith::SubIOp>(def) ? -1 : 1);
    return result;
  }
  if (depth < 8 && isa_and_nonnull<arith::MulIOp>(def)) {
    for (int side = 0; side < 2; ++side)
      if (std::optional<int64_t> c = getConstantIntValue(def->getOperand(side))) {
        result.add(linearize(def->getOperand(1 - side), depth + 1), *c);
        return result;
      }
  }
  result.terms[index] = 1;
  return result;
}

/// The box of elements an access touches: per memref dimension, the first
/// index and the extent (the tile's size along the dimensions it spans, 1
/// along the others). Empty for an access whose box is unknown.
struct AccessBox {
  SmallVector<Value> first;
  SmallVector<int64_t> extent;
};

AccessBox boxOf(Operation *op) {
  AccessBox box;
  auto fill = [&](ValueRange indices, ArrayRef<int64_t> dims,
                  ArrayRef<int64_t> shape) {
    box.first.assign(indices.begin(), indices.end());
    box.extent.assign(indices.size(), 1);
    for (auto [dim, size] : llvm::zip_equal(dims, shape))
      box.extent[dim] = size;
  };
  if (auto load = dyn_cast<tile::LoadOp>(op))
    fill(load.getIndices(), load.getDims(),
         cast<RankedTensorType>(load.getType()).getShape());
  else if (auto store = dyn_cast<tile::StoreOp>(op))
    fill(store.getIndices(), store.getDims(),
         cast<RankedTensorType>(store.getValue().getType()).getShape());
  else if (auto load = dyn_cast<memref::LoadOp>(op))
    fill(load.getIndices(), {}, {});
  else if (auto store = dyn_cast<memref::StoreOp>(op))
    fill(store.getIndices(), {}, {});
  return box;
}

/// True if `earlier` and `later` provably touch no common element: along
/// some dimension their first indices are one value plus constants whose
/// ranges do not meet. An access of an earlier trip of a loop with one
/// induction variable and a positive constant step, indexed by that
/// variable along that dimension, lies at least one step below the same
/// index of the current trip; values the loop defines otherwise (its
/// carried values, a while loop's arguments) prove nothing across trips.
bool provablyDisjoint(const Access &earlier, Operation *later) {
  AccessBox a = boxOf(earlier.op), b = boxOf(later);
  if (a.first.empty() || a.first.size() != b.first.size())
    return false;
  auto loop = dyn_cast_or_null<LoopLikeOpInterface>(earlier.earlierTripOf);
  std::optional<int64_t> step;
  Value inductionVar;
  if (loop) {
    if (std::optional<OpFoldResult> s = loop.getSingleStep())
      step = getConstantIntValue(*s);
    inductionVar = loop.getSingleInductionVar().value_or(Value());
  }
  for (size_t d = 0; d < a.first.size(); ++d) {
    LinearIndex ia = linearize(a.first[d]), ib = linearize(b.first[d]);
    // Boxes [constant, constant + extent) past one common sum of terms.
    auto apart = [&](int64_t shiftA) {
      return ia.constant + shiftA + a.extent[d] <= ib.constant ||
             ib.constant + b.extent[d] <= ia.constant + shiftA;
    };
    // Across trips, a value defined in the loop other than its induction
    // variable may differ from trip to trip: nothing is known then.
    if (loop) {
      auto variant = [&](const LinearIndex &x) {
        return llvm::any_of(x.terms, [&](auto term) {
          return term.first != inductionVar &&
                 !loop.isDefinedOutsideOfLoop(term.first);
        });
      };
      if (variant(ia) || variant(ib))
        continue;
    }
    int64_t scale = inductionVar ? ia.coefficient(inductionVar) : 0;
    if (scale == 0) {
      if (ia.sameTerms(ib) && apart(0))
        return true;
      continue;
    }
    // The induction variable of an earlier trip is at least one step
    // lower: with a positive scale, the earlier box ends at or below the
    // current one's start.
    if (step && *step > 0 && scale > 0 &&
        ib.coefficient(inductionVar) == scale &&
        ia.sameTerms(ib, inductionVar) &&
        ia.constant + a.extent[d] - scale * *step <= ib.constant)
      return true;
  }
  return false;
}

/// The memref accesses of `op` itself (not of ops nested in it).
SmallVector<Access> accessesOf(Operation *op) {
  SmallVector<Access> accesses;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return accesses;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  for (const MemoryEffects::EffectInstance &effect : instances) {
    Value buffer = effect.getValue();
    if (!buffer || !isa<BaseMemRefType>(buffer.getType()))
      continue;
    bool read = isa<MemoryEffects::Read>(effect.getEffect());
    bool write = isa<MemoryEffects::Write>(effect.getEffect());
    if (read || write)
      accesses.push_back({rootBuffer(buffer), write, op, {}});
  }
  return accesses;
}

/// The accesses no barrier has yet separated from what comes next.
struct PendingAccesses {
  SmallVector<Access> accesses;

  void clear() { accesses.clear(); }
  void add(ArrayRef<Access> more) {
    for (const Access &access : more)
      if (!llvm::any_of(accesses, [&](const Access &known) {
            return known.buffer == access.buffer &&
                   known.write == access.write && known.op == access.op &&
                   known.earlierTripOf == access.earlierTripOf;
          }))
        accesses.push_back(access);
  }
  /// True if one of `next` (the accesses of one op, after these) must wait
  /// for one of these: it reads what one of these writes, or writes what
  /// one of these reads or writes, and their elements may meet.
  bool conflictsWith(ArrayRef<Access> next) const {
    for (const Access &later : next)
      for (const Access &earlier : accesses)
        if (earlier.buffer == later.buffer &&
            (earlier.write || later.write) &&
            !provablyDisjoint(earlier, later.op))
          return true;
    return false;
  }
};

/// Every memref access of the ops nested in `loop`, as accesses of an
/// earlier trip of it.
SmallVector<Access> earlierTripAccesses(Operation *loop) {
  SmallVector<Access> all;
  loop->walk([&](Operation *inner) {
    for (Access access : accessesOf(inner)) {
      access.earlierTripOf = loop;
      all.push_back(access);
    }
  });
  return all;
}

PendingAccesses orderRegion(Region &region, const PendingAccesses &pending);

/// Puts a barrier before each op of `block` that conflicts with the
/// accesses pending before it (`pending` at the start of the block);
/// returns the accesses pending at its end.
PendingAccesses orderBlock(Block &block, PendingAccesses pending) {
  for (Operation &op : block) {
    if (isa<gpu::BarrierOp>(op)) {
      pending.clear();
      continue;
    }
    if (op.getNumRegions() == 0) {
      SmallVector<Access> accesses = accessesOf(&op);
      if (pending.conflictsWith(accesses)) {
        OpBuilder b(&op);
        gpu::BarrierOp::create(b, op.getLoc());
        pending.clear();
      }
      pending.add(accesses);
      continue;
    }
    // A loop's body may run after its own accesses of an earlier trip; any
    // region may be skipped. The regions start from what is pending before
    // the op (and, for a loop, from every access in it, as of an earlier
    // trip), and what any of them leaves pending stays pending after it.
    PendingAccesses start = pending;
    if (isa<LoopLikeOpInterface>(op))
      start.add(earlierTripAccesses(&op));
    for (Region &region : op.getRegions())
      pending.add(orderRegion(region, start).accesses);
  }
  return pending;
}

PendingAccesses orderRegion(Region &region, const PendingAccesses &pending) {
  PendingAccesses end = pending;
  for (Block &block : region)
    end.add(orderBlock(block, pending).accesses);
  return end;
}

} // namespace

void simt::orderGlobalAccesses(func::FuncOp kernel) {
  orderRegion(kernel.getBody(), {});
}
