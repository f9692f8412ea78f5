//===- SharedMemory.cpp - pack tile temporaries into shared memory --------===//

#include "SharedMemory.h"
#include "Barriers.h"
#include "MatmulEpilogues.h"
#include "TensorCore.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/IR/Builders.h"

#include <limits>

using namespace mlir;

namespace {

/// Alignment of every buffer in the shared block.
constexpr int64_t kAlignment = 128;

/// One allocation's place in the program and in the shared block.
struct Buffer {
  memref::AllocOp alloc;
  int64_t bytes = 0;
  int64_t first = 0, last = 0; // live range in program positions
  /// The ops at the two ends of the range (after the widening to loops):
  /// the one that touches the buffer first and the one that does last.
  Operation *firstOp = nullptr, *lastOp = nullptr;
  int64_t offset = 0;
  MemRefType padded; // the padded storage type, or null
  /// Buffers that an elementwise op writes in place of this one, or that
  /// this one is written in place of: their ranges only touch, and they
  /// may share bytes only at one offset (element i of one is element i of
  /// the other).
  SmallVector<Operation *> inPlacePartners;
};

/// Size in bytes of a static memref.
int64_t sizeInBytes(MemRefType type) {
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

/// Bytes added to each row of a padded buffer. Shared memory has 32 banks
/// of 4 bytes: rows whose length is a multiple of 128 bytes all start in
/// bank 0, so threads reading one column of different rows (the
/// fragments of mma.sync, a reduction over a row per thread) conflict.
/// 16 more bytes per row put row r at bank 4r: the 8 rows x 4 words of an
/// mma.sync fragment load hit 32 distinct banks, and rows stay 16-byte
/// aligned for vector accesses.
constexpr int64_t kRowPadBytes = 16;

/// True if `v` (an allocation or a view of it) is, directly or through
/// subviews, an A or B operand of a matmul that runs on 16-bit mma.sync,
/// whose fragments ldmatrix reads as 8 rows of 16 bytes.
bool readByLdmatrix(Value v, int64_t numThreads) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (auto subview = dyn_cast<memref::SubViewOp>(user)) {
      if (readByLdmatrix(subview.getResult(), numThreads))
        return true;
      continue;
    }
    auto matmul = dyn_cast<linalg::MatmulOp>(user);
    if (matmul && matmul.isDpsInput(&use) &&
        kda::canUse16BitMmaSync(matmul, numThreads))
      return true;
  }
  return false;
}

/// The padded type of a 2-D buffer, or null when it keeps its layout.
/// Padded are buffers whose rows are a multiple of 128 bytes long, and
/// ldmatrix operands whose rows are an even number of 16-byte chunks (32
/// or 64 bytes: without padding, 8 rows of an ldmatrix block fall on 2 or
/// 4 bank groups). Shorter rows of other buffers keep their layout: threads
/// that read 16 consecutive elements of two rows, as the reductions and
/// elementwise ops do, hit distinct banks only without padding. Only
/// buffers that are used by linalg ops and subviews alone (directly or
/// through subviews) are padded: those uses take any strided layout.
MemRefType paddedRowType(memref::AllocOp alloc, int64_t numThreads) {
  MemRefType type = alloc.getType();
  if (type.getRank() != 2 || type.getDimSize(0) < 2)
    return nullptr;
  int64_t elemBytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  int64_t rowBytes = type.getDimSize(1) * elemBytes;
  if (kRowPadBytes % elemBytes != 0)
    return nullptr;
  if (rowBytes % 128 != 0 &&
      !(rowBytes % 32 == 0 && readByLdmatrix(alloc.getResult(), numThreads)))
    return nullptr;
  std::function<bool(Value)> onlyStridedUses = [&](Value v) {
    for (Operation *user : v.getUsers()) {
      if (isa<linalg::LinalgOp>(user))
        continue;
      auto subview = dyn_cast<memref::SubViewOp>(user);
      if (!subview || subview.getSource() != v ||
          !onlyStridedUses(subview.getResult()))
        return false;
    }
    return true;
  };
  if (!onlyStridedUses(alloc.getResult()))
    return nullptr;
  return MemRefType::get(
      {type.getDimSize(0), type.getDimSize(1) + kRowPadBytes / elemBytes},
      type.getElementType(), AffineMap(), type.getMemorySpace());
}

/// Makes `from`'s users use `to`, a view of the same shape with another
/// (strided) layout: linalg ops take it as is, subviews are rebuilt with
/// the layout their new source gives them, and so on down.
void replaceWithRestrided(OpBuilder &b, Value from, Value to) {
  for (OpOperand &use : llvm::make_early_inc_range(from.getUses())) {
    Operation *user = use.getOwner();
    if (auto subview = dyn_cast<memref::SubViewOp>(user)) {
      b.setInsertionPoint(subview);
      MemRefType resultType = memref::SubViewOp::inferRankReducedResultType(
          subview.getType().getShape(), cast<MemRefType>(to.getType()),
          subview.getMixedOffsets(), subview.getMixedSizes(),
          subview.getMixedStrides());
      auto rebuilt = memref::SubViewOp::create(
          b, subview.getLoc(), resultType, to, subview.getMixedOffsets(),
          subview.getMixedSizes(), subview.getMixedStrides());
      replaceWithRestrided(b, subview.getResult(), rebuilt.getResult());
      subview.erase();
      continue;
    }
    use.set(to);
  }
}

/// True if `op` is an elementwise linalg.generic that may write its output
/// into the bytes of its input `input`: every loop parallel, every map the
/// identity, a body without memory effects, not fused into a matmul (whose
/// lowering gives elements to threads differently), and `input` and the
/// output both whole allocations of one storage type. Each element is then
/// read and written by one thread in one iteration, reading first, so an
/// input that is not used after `op` can end where the output begins.
bool writesInPlaceOf(Operation *op, Value input,
                     const DenseMap<Operation *, MemRefType> &storage) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic->hasAttr(kda::kFusedEpilogueAttr) ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  WalkResult body = generic.getRegion().walk([](Operation *inner) {
    return isMemoryEffectFree(inner) ? WalkResult::advance()
                                     : WalkResult::interrupt();
  });
  if (body.wasInterrupted())
    return false;
  auto in = storage.find(input.getDefiningOp());
  auto out = storage.find(generic.getDpsInits()[0].getDefiningOp());
  return in != storage.end() && out != storage.end() && in != out &&
         in->second == out->second &&
         llvm::is_contained(generic.getDpsInputs(), input);
}

/// True if every thread has passed a gpu.barrier after the last access to
/// `early` and before the first access to `late` (`early`'s range ends
/// before `late`'s begins): a barrier directly in the innermost block that
/// holds both ends, between the ops of that block that hold them. In a
/// block that a loop runs again, `late` in one trip also precedes `early`
/// in the next: a barrier of the block after the op that holds `late`'s
/// last access, or before the one that holds `early`'s first, must
/// separate those too.
bool separatedByBarrier(const Buffer &early, const Buffer &late) {
  if (!early.firstOp || !early.lastOp || !late.firstOp || !late.lastOp)
    return false;
  Block *block = nullptr;
  for (Operation *op = early.lastOp; op && !block; op = op->getParentOp()) {
    Block *candidate = op->getBlock();
    if (candidate && candidate->findAncestorOpInBlock(*late.firstOp))
      block = candidate;
  }
  if (!block)
    return false;
  Operation *from = block->findAncestorOpInBlock(*early.lastOp);
  Operation *to = block->findAncestorOpInBlock(*late.firstOp);
  if (!from || !to || from == to || !from->isBeforeInBlock(to))
    return false;
  auto barrierIn = [&](Operation *after, Operation *before) {
    for (Operation &op : *block)
      if (isa<gpu::BarrierOp>(op) && (!after || after->isBeforeInBlock(&op)) &&
          (!before || op.isBeforeInBlock(before)))
        return true;
    return false;
  };
  if (!barrierIn(from, to))
    return false;
  for (Operation *p = block->getParentOp(); p; p = p->getParentOp()) {
    if (isa<FunctionOpInterface>(p))
      break;
    if (isa<LoopLikeOpInterface>(p)) {
      Operation *lateEnd = block->findAncestorOpInBlock(*late.lastOp);
      Operation *earlyStart = block->findAncestorOpInBlock(*early.firstOp);
      if (!lateEnd || !earlyStart)
        return false;
      return barrierIn(lateEnd, nullptr) || barrierIn(nullptr, earlyStart);
    }
  }
  return true;
}

} // namespace

bool kda::hasSixteenByteRows(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  if (!space || space.getValue() != gpu::AddressSpace::Workgroup ||
      type.getRank() == 0 || type.getElementTypeBitWidth() % 8 != 0)
    return false;
  int64_t elemBytes = type.getElementTypeBitWidth() / 8;
  if (16 % elemBytes != 0)
    return false;
  int64_t perRow = 16 / elemBytes;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || ShapedType::isDynamic(offset) ||
      offset % perRow != 0)
    return false;
  return llvm::all_of(ArrayRef(strides).drop_back(), [&](int64_t stride) {
    return !ShapedType::isDynamic(stride) && stride % perRow == 0;
  });
}

FailureOr<int64_t> kda::packSharedMemory(gpu::GPUFuncOp func,
                                         ArrayRef<memref::AllocOp> allocs,
                                         int64_t numThreads,
                                         bool explicitBarriers) {
  if (allocs.empty())
    return 0;

  // Program positions: pre-order index of every op, and for ops with
  // regions the last position inside them.
  DenseMap<Operation *, int64_t> begin, end;
  int64_t counter = 0;
  std::function<void(Operation *)> number = [&](Operation *op) {
    begin[op] = counter++;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &inner : block)
          number(&inner);
    end[op] = counter - 1;
  };
  for (Operation &op : func.getBody().front())
    number(&op);

  // The storage type of each allocation (padded or not).
  DenseMap<Operation *, MemRefType> storage;
  for (memref::AllocOp alloc : allocs) {
    MemRefType padded = paddedRowType(alloc, numThreads);
    storage[alloc] = padded ? padded : alloc.getType();
  }

  // Live ranges are in half steps: a use of op P covers [2 P, 2 end(P) + 1],
  // except that an elementwise op that writes in place of an input reads
  // that input at 2 P and writes its output from 2 P + 1 on, so the output
  // may take the bytes of an input that dies there.
  SmallVector<Buffer> buffers;
  for (memref::AllocOp alloc : allocs) {
    Buffer buffer;
    buffer.alloc = alloc;
    MemRefType stored = storage.lookup(alloc);
    if (stored != alloc.getType())
      buffer.padded = stored;
    buffer.bytes = llvm::alignTo(sizeInBytes(stored), kAlignment);
    // An accumulator kept in registers is never read or written.
    if (alloc->hasAttr(kRegistersOnlyAttr))
      buffer.bytes = 0;
    buffer.first = std::numeric_limits<int64_t>::max();
    buffer.last = std::numeric_limits<int64_t>::min();
    // Every use of the allocation or of a view of it, widened to the loops
    // around the use that do not also hold the allocation. The allocation
    // op and the view ops themselves touch no bytes: a buffer allocated at
    // the top of the kernel but first written after a loop does not hold
    // its bytes during the loop.
    // A buffer that flows into control flow (yielded from a region, passed
    // as a loop's initial value, given to a call) may be read through values
    // this walk does not follow: it keeps its bytes for the whole kernel.
    bool escapes = false;
    SmallVector<Value> worklist{alloc.getResult()};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (auto view = dyn_cast<ViewLikeOpInterface>(user);
            view && view.getViewSource() == v) {
          for (Value r : user->getResults())
            worklist.push_back(r);
          continue;
        }
        if (user->hasTrait<OpTrait::IsTerminator>() ||
                   isa<RegionBranchOpInterface, CallOpInterface>(user)) {
          escapes = true;
        }
        int64_t lo = 2 * begin[user], hi = 2 * end[user] + 1;
        if (v == alloc.getResult() && writesInPlaceOf(user, v, storage)) {
          hi = 2 * begin[user];
          buffer.inPlacePartners.push_back(
              cast<linalg::GenericOp>(user).getDpsInits()[0].getDefiningOp());
        }
        if (auto generic = dyn_cast<linalg::GenericOp>(user);
            generic && v == alloc.getResult() &&
            generic.getNumDpsInits() == 1 && generic.getDpsInits()[0] == v)
          for (Value input : generic.getDpsInputs())
            if (writesInPlaceOf(user, input, storage)) {
              lo = 2 * begin[user] + 1;
              buffer.inPlacePartners.push_back(input.getDefiningOp());
            }
        // A fused epilogue or chained matmul runs inside the lowering of
        // the chain's first matmul.
        Operation *loOp = user, *hiOp = user;
        if (Operation *with = loweredWith(user); with != user) {
          lo = std::min(lo, 2 * begin[with]);
          loOp = with;
        }
        for (Operation *p = user->getParentOp(); p && p != func;
             p = p->getParentOp())
          if (isa<LoopLikeOpInterface>(p) && !p->isAncestor(alloc)) {
            if (2 * begin[p] < lo)
              loOp = p;
            if (2 * end[p] + 1 > hi)
              hiOp = p;
            lo = std::min(lo, 2 * begin[p]);
            hi = std::max(hi, 2 * end[p] + 1);
          }
        if (lo < buffer.first)
          buffer.firstOp = loOp;
        if (hi > buffer.last)
          buffer.lastOp = hiOp;
        buffer.first = std::min(buffer.first, lo);
        buffer.last = std::max(buffer.last, hi);
      }
    }
    if (escapes) {
      buffer.first = 0;
      buffer.last = 2 * counter + 1;
    } else if (buffer.first > buffer.last) {
      // Never used: a one-op range where it was allocated.
      buffer.first = buffer.last = 2 * begin[alloc];
    }
    buffers.push_back(buffer);
  }

  // First fit, largest buffers first.
  SmallVector<Buffer *> order;
  for (Buffer &b : buffers)
    order.push_back(&b);
  llvm::stable_sort(order, [](Buffer *a, Buffer *b) { return a->bytes > b->bytes; });
  SmallVector<Buffer *> placed;
  int64_t total = 0;
  for (Buffer *b : order) {
    // Placed buffers live at the same time, and in-place partners (which
    // may not overlap b at any other offset than their own).
    // A partner whose range overlaps b's is still read after the in-place
    // write: it takes its bytes at every offset.
    struct Busy {
      int64_t lo, hi;
      Buffer *owner;
    };
    SmallVector<Busy> busy;
    SmallVector<Buffer *> partners;
    for (Buffer *p : placed) {
      bool live = !(p->last < b->first || b->last < p->first);
      // Where the kernel orders its shared-memory accesses with its own
      // barriers (register tiles), two buffers share bytes only where a
      // barrier lies between one's last access and the other's first.
      if (explicitBarriers && !live) {
        bool pFirst = p->last < b->first;
        Buffer *early = pFirst ? p : b, *late = pFirst ? b : p;
        live = !separatedByBarrier(*early, *late);
      }
      bool partner = llvm::is_contained(b->inPlacePartners, p->alloc);
      if (partner && !live)
        partners.push_back(p);
      if (partner || live)
        busy.push_back({p->offset, p->offset + p->bytes, p});
    }
    llvm::sort(busy, [](const Busy &x, const Busy &y) { return x.lo < y.lo; });
    // A partner's own bytes first (the in-place write), then first fit.
    std::optional<int64_t> chosen;
    for (Buffer *p : partners) {
      bool fits = llvm::all_of(busy, [&](const Busy &range) {
        return range.owner == p || range.hi <= p->offset ||
               p->offset + b->bytes <= range.lo;
      });
      if (fits) {
        chosen = p->offset;
        break;
      }
    }
    int64_t offset = 0;
    for (const Busy &range : busy) {
      if (offset + b->bytes <= range.lo)
        break;
      offset = std::max(offset, range.hi);
    }
    b->offset = chosen.value_or(offset);
    total = std::max(total, b->offset + b->bytes);
    placed.push_back(b);
  }

  // One byte buffer and a view per allocation.
  MLIRContext *ctx = func.getContext();
  auto space = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  OpBuilder b(ctx);
  b.setInsertionPointToStart(&func.getBody().front());
  Value block;
  int64_t dynamicBytes = 0;
  if (total <= kMaxStaticSharedBytes) {
    auto type = MemRefType::get({total}, b.getI8Type(), AffineMap(), space);
    block = func.addWorkgroupAttribution(type, func.getLoc());
    // Byte buffers would otherwise get 1-byte alignment; the views need
    // the alignment of their widest accesses.
    func.setWorkgroupAttributionAttr(
        func.getNumWorkgroupAttributions() - 1,
        StringAttr::get(ctx, "llvm.align"), b.getI64IntegerAttr(kAlignment));
  } else {
    auto type = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                AffineMap(), space);
    block = gpu::DynamicSharedMemoryOp::create(b, func.getLoc(), type);
    dynamicBytes = total;
  }
  for (Buffer &buffer : buffers) {
    Location loc = buffer.alloc.getLoc();
    b.setInsertionPoint(buffer.alloc);
    Value offset = arith::ConstantIndexOp::create(b, loc, buffer.offset);
    if (!buffer.padded) {
      Value view = memref::ViewOp::create(b, loc, buffer.alloc.getType(),
                                          block, offset, ValueRange{});
      buffer.alloc.replaceAllUsesWith(view);
      buffer.alloc.erase();
      continue;
    }
    // The padded rows, and the [R, C] window of them the code uses.
    Value storage = memref::ViewOp::create(b, loc, buffer.padded, block,
                                           offset, ValueRange{});
    ArrayRef<int64_t> shape = buffer.alloc.getType().getShape();
    Value window = memref::SubViewOp::create(
        b, loc, storage, ArrayRef<int64_t>{0, 0}, shape,
        ArrayRef<int64_t>{1, 1});
    replaceWithRestrided(b, buffer.alloc.getResult(), window);
    buffer.alloc.erase();
  }
  return dynamicBytes;
}
