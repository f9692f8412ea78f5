//===- SharedMemory.cpp - pack tile temporaries into shared memory --------===//

#include "SharedMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace {

/// Alignment of every buffer in the shared block.
constexpr int64_t kAlignment = 128;

/// One allocation's place in the program and in the shared block.
struct Buffer {
  memref::AllocOp alloc;
  int64_t bytes = 0;
  int64_t first = 0, last = 0; // live range in program positions
  int64_t offset = 0;
};

/// Size in bytes of a static memref.
int64_t sizeInBytes(MemRefType type) {
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

} // namespace

FailureOr<int64_t> kda::packSharedMemory(gpu::GPUFuncOp func,
                                         ArrayRef<memref::AllocOp> allocs) {
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

  SmallVector<Buffer> buffers;
  for (memref::AllocOp alloc : allocs) {
    Buffer buffer;
    buffer.alloc = alloc;
    buffer.bytes = llvm::alignTo(sizeInBytes(alloc.getType()), kAlignment);
    buffer.first = begin[alloc];
    buffer.last = begin[alloc];
    // Every use of the allocation or of a view of it, widened to the loops
    // around the use that do not also hold the allocation.
    // A buffer that flows into control flow (yielded from a region, passed
    // as a loop's initial value, given to a call) may be read through values
    // this walk does not follow: it keeps its bytes for the whole kernel.
    bool escapes = false;
    SmallVector<Value> worklist{alloc.getResult()};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
          if (view.getViewSource() == v)
            for (Value r : user->getResults())
              worklist.push_back(r);
        } else if (user->hasTrait<OpTrait::IsTerminator>() ||
                   isa<RegionBranchOpInterface, CallOpInterface>(user)) {
          escapes = true;
        }
        int64_t lo = begin[user], hi = end[user];
        for (Operation *p = user->getParentOp(); p && p != func;
             p = p->getParentOp())
          if (isa<LoopLikeOpInterface>(p) && !p->isAncestor(alloc)) {
            lo = std::min(lo, begin[p]);
            hi = std::max(hi, end[p]);
          }
        buffer.first = std::min(buffer.first, lo);
        buffer.last = std::max(buffer.last, hi);
      }
    }
    if (escapes) {
      buffer.first = 0;
      buffer.last = counter;
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
    SmallVector<std::pair<int64_t, int64_t>> busy;
    for (Buffer *p : placed)
      if (!(p->last < b->first || b->last < p->first))
        busy.push_back({p->offset, p->offset + p->bytes});
    llvm::sort(busy);
    int64_t offset = 0;
    for (auto [lo, hi] : busy) {
      if (offset + b->bytes <= lo)
        break;
      offset = std::max(offset, hi);
    }
    b->offset = offset;
    total = std::max(total, offset + b->bytes);
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
    b.setInsertionPoint(buffer.alloc);
    Value offset =
        arith::ConstantIndexOp::create(b, buffer.alloc.getLoc(), buffer.offset);
    Value view = memref::ViewOp::create(b, buffer.alloc.getLoc(),
                                        buffer.alloc.getType(), block, offset,
                                        ValueRange{});
    buffer.alloc.replaceAllUsesWith(view);
    buffer.alloc.erase();
  }
  return dynamicBytes;
}
