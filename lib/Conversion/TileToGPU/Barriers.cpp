//===- Barriers.cpp - which tile ops need a barrier between them ----------===//
//
// Every linalg op of a kernel is spread over the block's threads, so a
// thread may read what another thread wrote in an earlier op: a barrier
// separates them. Ops that share no memory (the dots of different
// accumulators, elementwise ops on different tiles) or that touch each
// shared element from the same thread (a chain of elementwise ops) can run
// back to back.
//
//===----------------------------------------------------------------------===//

#include "Barriers.h"
#include "VectorElementwise.h"
#include "VectorStores.h"
#include "MatmulEpilogues.h"
#include "MatmulPrologues.h"
#include "Scan.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace {

/// Where a memref access lands: a byte range of the packed shared block, a
/// view of a global memref (its root value), or anywhere in shared memory.
struct Place {
  enum Kind { SharedRange, SharedAnywhere, Global } kind;
  int64_t begin = 0, end = 0;
  Value root;
};

/// One memref access of an op: the value it goes through, its indexing map
/// (null when not an operand of the op), and whether it writes.
struct Access {
  Value memref;
  AffineMap map;
  bool writes;
  Place place;
};

Place placeOf(Value memref) {
  bool shared = kda::isWorkgroupMemRef(memref.getType());
  Value v = memref;
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      auto type = view.getType();
      std::optional<int64_t> shift =
          getConstantIntValue(view.getByteShift());
      if (!shared || !shift || !type.hasStaticShape() ||
          !type.getElementType().isIntOrFloat())
        break;
      int64_t bytes = type.getNumElements() *
                      llvm::divideCeil(type.getElementTypeBitWidth(), 8);
      return Place{Place::SharedRange, *shift, *shift + bytes, Value()};
    }
    auto viewLike = dyn_cast<ViewLikeOpInterface>(def);
    if (!viewLike)
      break;
    v = viewLike.getViewSource();
  }
  if (shared)
    return Place{Place::SharedAnywhere, 0, 0, Value()};
  return Place{Place::Global, 0, 0, v};
}

/// True if `type` is a memref whose strides and offset are all static.
bool hasStaticLayout(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  SmallVector<int64_t> strides;
  int64_t offset;
  return memref && succeeded(memref.getStridesAndOffset(strides, offset)) &&
         !ShapedType::isDynamic(offset) &&
         llvm::none_of(strides, ShapedType::isDynamic);
}

bool overlap(const Place &a, const Place &b) {
  if (a.kind == Place::Global || b.kind == Place::Global)
    return a.kind == b.kind && a.root == b.root;
  if (a.kind == Place::SharedAnywhere || b.kind == Place::SharedAnywhere)
    return true;
  return a.begin < b.end && b.begin < a.end;
}

/// The accesses of `op`, or nullopt when some effect is not understood.
/// A matmul with a fused epilogue does not touch its accumulator, and makes
/// the epilogue's other accesses.
std::optional<SmallVector<Access>> accessesOf(linalg::LinalgOp op) {
  SmallVector<Access> out;
  Value registersOnly;
  if (linalg::GenericOp epilogue = kda::fusedEpilogueOf(op)) {
    registersOnly = op.getDpsInits()[0];
    SmallVector<linalg::MatmulOp> chain = kda::matmulChainOf(op);
    SmallVector<linalg::LinalgOp> parts;
    for (linalg::MatmulOp part : ArrayRef(chain).drop_front())
      parts.push_back(cast<linalg::LinalgOp>(part.getOperation()));
    parts.push_back(cast<linalg::LinalgOp>(epilogue.getOperation()));
    for (linalg::LinalgOp part : parts) {
      std::optional<SmallVector<Access>> more = accessesOf(part);
      if (!more)
        return std::nullopt;
      for (const Access &access : *more)
        if (access.memref != registersOnly)
          out.push_back(access);
    }
  }
  // A matmul with a fused prologue reads the prologue's operands.
  if (linalg::GenericOp prologue = kda::fusedPrologueOf(op))
    for (OpOperand *input : prologue.getDpsInputOperands())
      out.push_back(Access{input->get(),
                           prologue.getMatchingIndexingMap(input), false,
                           placeOf(input->get())});
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()) ||
        operand.get() == registersOnly)
      continue;
    bool init = op.isDpsInit(&operand);
    out.push_back(Access{operand.get(), op.getMatchingIndexingMap(&operand),
                         init, placeOf(operand.get())});
  }
  // Memrefs read or written inside the body.
  bool understood = true;
  op->walk([&](Operation *inner) {
    if (inner == op.getOperation() || isMemoryEffectFree(inner))
      return;
    if (auto load = dyn_cast<memref::LoadOp>(inner)) {
      out.push_back(Access{load.getMemRef(), AffineMap(), false,
                           placeOf(load.getMemRef())});
      return;
    }
    if (auto store = dyn_cast<memref::StoreOp>(inner)) {
      out.push_back(Access{store.getMemRef(), AffineMap(), true,
                           placeOf(store.getMemRef())});
      return;
    }
    if (!isa<linalg::YieldOp>(inner))
      understood = false;
  });
  if (!understood)
    return std::nullopt;
  return out;
}

/// True if `op` is spread over the threads by the generic schedule with
/// only parallel loops, each iteration on thread (linear index mod N).
bool isElementwiseSchedule(linalg::LinalgOp op) {
  if (isa<linalg::MatmulOp>(op.getOperation()))
    return false;
  // Tile stores move 16-byte pieces, a different thread per piece.
  if (auto copy = dyn_cast<linalg::CopyOp>(op.getOperation());
      copy && kda::isVectorizableTileStore(copy))
    return false;
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      generic && kda::isMarkedScan(generic))
    return false;
  if (op.getNumLoops() == 0 || op.getNumReductionLoops() != 0)
    return false;
  return llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic);
}

} // namespace

bool kda::needsBarrierBetween(linalg::LinalgOp first,
                              linalg::LinalgOp second) {
  std::optional<SmallVector<Access>> a = accessesOf(first);
  std::optional<SmallVector<Access>> b = accessesOf(second);
  if (!a || !b)
    return true;
  // (Ops that run by vectors give a thread other iterations than ops that
  // do not.)
  bool sameSchedule = isElementwiseSchedule(first) &&
                      isElementwiseSchedule(second) &&
                      first.getStaticLoopRanges() ==
                          second.getStaticLoopRanges() &&
                      kda::elementwiseVectorLanes(first) ==
                          kda::elementwiseVectorLanes(second);
  for (const Access &x : *a) {
    for (const Access &y : *b) {
      if (!(x.writes || y.writes) || !overlap(x.place, y.place))
        continue;
      // The same element from the same thread in both ops: one buffer, or
      // two views of one static layout at the same shared bytes (an
      // elementwise op that wrote in place of its input). Views with a
      // dynamic offset may name different parts of the bytes.
      bool sameBuffer =
          x.memref == y.memref ||
          (x.memref.getType() == y.memref.getType() &&
           hasStaticLayout(x.memref.getType()) &&
           x.place.kind == Place::SharedRange &&
           y.place.kind == Place::SharedRange &&
           x.place.begin == y.place.begin && x.place.end == y.place.end);
      bool sameThread = sameSchedule && sameBuffer && x.map && y.map &&
                        x.map.isIdentity() && y.map.isIdentity();
      if (!sameThread)
        return true;
    }
  }
  return false;
}

bool kda::touchesSharedBytesOf(Operation *op, ArrayRef<Value> buffers) {
  SmallVector<Place> places;
  for (Value buffer : buffers)
    places.push_back(placeOf(buffer));
  WalkResult result = op->walk([&](Operation *inner) {
    if (isMemoryEffectFree(inner))
      return WalkResult::advance();
    for (Value operand : inner->getOperands()) {
      if (!kda::isWorkgroupMemRef(operand.getType()))
        continue;
      Place place = placeOf(operand);
      if (llvm::any_of(places, [&](const Place &p) {
            return overlap(p, place);
          }))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// True if `op` reads or writes memory: an allocation only names a buffer.
static bool accessesMemory(Operation *op) {
  return !isMemoryEffectFree(op) && !isa<memref::AllocOp>(op);
}

Operation *kda::previousEffectfulOp(Operation *op) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode())
    if (accessesMemory(prev))
      return prev;
  return nullptr;
}

Operation *kda::nextEffectfulOp(Operation *op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (accessesMemory(next))
      return next;
  return nullptr;
}

SmallVector<kda::BarrierPlan>
kda::planBarriers(ArrayRef<linalg::LinalgOp> ops) {
  SmallVector<BarrierPlan> plan(ops.size());
  SmallVector<size_t> run; // indices into ops
  for (auto [i, op] : llvm::enumerate(ops)) {
    linalg::LinalgOp last = run.empty() ? linalg::LinalgOp() : ops[run.back()];
    bool joins =
        last && previousEffectfulOp(op) == last.getOperation() &&
        llvm::none_of(run, [&](size_t earlier) {
          return needsBarrierBetween(ops[earlier], op);
        });
    if (joins) {
      plan[i].before = false;
      plan[run.back()].after = false;
    } else {
      run.clear();
    }
    run.push_back(i);
  }
  return plan;
}

bool kda::isWorkgroupMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(memref.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}
