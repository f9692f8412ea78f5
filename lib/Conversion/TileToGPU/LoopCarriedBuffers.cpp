//===- LoopCarriedBuffers.cpp - one buffer per loop-carried tile ----------===//

#include "LoopCarriedBuffers.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace {

/// True for a statically shaped memref in GPU shared memory.
bool isSharedBuffer(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape())
    return false;
  auto space =
      dyn_cast_or_null<gpu::AddressSpaceAttr>(memref.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

} // namespace

void kda::separateLoopCarriedBuffers(
    gpu::GPUFuncOp func, SmallVectorImpl<memref::AllocOp> &allocs) {
  SmallVector<scf::ForOp> loops;
  func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (unsigned i = 0, e = loop.getNumRegionIterArgs(); i < e; ++i) {
      BlockArgument carried = loop.getRegionIterArg(i);
      Value yielded = yield.getOperand(i);
      if (!isSharedBuffer(carried.getType()) || yielded == carried)
        continue;
      auto type = cast<MemRefType>(carried.getType());
      Location loc = loop.getLoc();
      OpBuilder b(loop);
      auto buffer = memref::AllocOp::create(b, loc, type);
      allocs.push_back(buffer);
      linalg::CopyOp::create(b, loc, loop.getInitArgs()[i], buffer.getResult());
      loop.getInitArgsMutable()[i].set(buffer.getResult());
      b.setInsertionPoint(yield);
      linalg::CopyOp::create(b, loc, yielded, buffer.getResult());
      yield->setOperand(i, buffer);
      // The iter_arg and the result are now always `buffer`.
      carried.replaceAllUsesWith(buffer);
      loop.getResult(i).replaceAllUsesWith(buffer);
    }
  }
}
