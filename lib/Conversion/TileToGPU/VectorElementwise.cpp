//===- VectorElementwise.cpp - elementwise tile ops by vectors ------------===//
//
// Distributed like other linalg ops, an elementwise op on shared tiles
// costs each thread one shared-memory load per operand and one store per
// result for every element, plus its index arithmetic: the elementwise
// passes (roundings to bf16, decays, masks) are most of the instructions of
// several stages. Here a thread takes 4 consecutive elements per step: one
// vector load per operand read along the rows, the scalar body once per
// lane, one vector store per result.
//
//===----------------------------------------------------------------------===//

#include "VectorElementwise.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace {

/// Consecutive iterations of the innermost loop per thread and step.
constexpr int64_t kLanes = 4;

/// Steps per thread unrolled; with more, the steps are a loop.
constexpr int64_t kMaxUnrolledSteps = 2;

/// How the lanes of one step read an operand.
enum class Access {
  Vector,  // one vector load: contiguous along the innermost loop
  Uniform, // one scalar load: the operand does not depend on it
  PerLane, // one scalar load per lane
};

bool isWorkgroup(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// Bytes of one element of `type`, or 0 if not a whole number of bytes.
int64_t elementBytes(MemRefType type) {
  Type element = type.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return 0;
  return element.getIntOrFloatBitWidth() / 8;
}

/// True if `type` is a shared buffer whose static layout starts every group
/// of kLanes elements along its rows at a multiple of the group's size
/// (shared buffers start 128-byte aligned).
bool hasAlignedGroups(MemRefType type) {
  if (!isWorkgroup(type) || !elementBytes(type))
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic) || strides.empty() ||
      strides.back() != 1 || offset % kLanes != 0)
    return false;
  return llvm::all_of(ArrayRef<int64_t>(strides).drop_back(),
                      [](int64_t s) { return s % kLanes == 0; });
}

Access classify(linalg::LinalgOp op, OpOperand &operand, unsigned inner) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  if (!map.isFunctionOfDim(inner))
    return Access::Uniform;
  auto type = dyn_cast<MemRefType>(operand.get().getType());
  ArrayRef<AffineExpr> results = map.getResults();
  auto last = dyn_cast<AffineDimExpr>(results.back());
  bool innerLastOnly =
      last && last.getPosition() == inner &&
      llvm::count_if(results, [&](AffineExpr e) {
        return e.isFunctionOfDim(inner);
      }) == 1;
  if (type && innerLastOnly && hasAlignedGroups(type))
    return Access::Vector;
  return Access::PerLane;
}

/// The indices of `map` at the loop coordinates `coords`.
SmallVector<Value> indicesAt(OpBuilder &b, Location loc, AffineMap map,
                             ValueRange coords) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      indices.push_back(coords[dim.getPosition()]);
      continue;
    }
    AffineMap one = AffineMap::get(map.getNumDims(), 0, expr);
    indices.push_back(affine::AffineApplyOp::create(b, loc, one, coords));
  }
  return indices;
}

} // namespace

int64_t mlir::kda::elementwiseVectorLanes(linalg::LinalgOp generic) {
  // Generic ops, and the named ops that generalize to elementwise ones
  // (copies between shared tiles, fills, maps), so that a chain of them
  // keeps one schedule.
  if (!isa<linalg::GenericOp, linalg::CopyOp, linalg::FillOp, linalg::MapOp>(
          generic.getOperation()) ||
      !generic.hasPureBufferSemantics() || generic.getNumLoops() == 0 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return 0;
  if (auto copy = dyn_cast<linalg::CopyOp>(generic.getOperation()))
    if (!isWorkgroup(cast<MemRefType>(copy.getInputs()[0].getType())))
      return 0; // tile loads: cp.async or their own fallback
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) ||
      ranges.back() % kLanes != 0)
    return 0;
  unsigned inner = generic.getNumLoops() - 1;
  for (OpOperand &init : generic.getDpsInitsMutable()) {
    auto type = dyn_cast<MemRefType>(init.get().getType());
    if (!type || !generic.getMatchingIndexingMap(&init).isIdentity() ||
        classify(generic, init, inner) != Access::Vector)
      return 0;
  }
  return kLanes;
}

bool mlir::kda::vectorizeElementwise(RewriterBase &rewriter,
                                     linalg::LinalgOp linalgOp,
                                     int64_t numThreads) {
  if (!elementwiseVectorLanes(linalgOp))
    return false;
  auto op = dyn_cast<linalg::GenericOp>(linalgOp.getOperation());
  if (!op) {
    rewriter.setInsertionPoint(linalgOp);
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, linalgOp);
    if (failed(generic))
      return false;
    op = *generic;
  }
  Location loc = op.getLoc();
  SmallVector<int64_t> groups = op.getStaticLoopRanges();
  unsigned numLoops = groups.size(), inner = numLoops - 1;
  groups.back() /= kLanes;
  int64_t total = 1;
  for (int64_t g : groups)
    total *= g;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());

  rewriter.setInsertionPoint(op);
  auto constant = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  // The iterations of one step of the calling thread: the kLanes
  // consecutive iterations of group `group`.
  auto emitStep = [&](Value group) {
    // Loop coordinates of the group's first iteration (row-major groups).
    SmallVector<Value> coords(numLoops);
    Value rest = group;
    for (int d = numLoops - 1; d >= 0; --d) {
      if (d == 0) {
        coords[d] = rest;
        break;
      }
      Value extent = constant(rewriter, groups[d]);
      coords[d] = arith::RemUIOp::create(rewriter, loc, rest, extent);
      rest = arith::DivUIOp::create(rewriter, loc, rest, extent);
    }
    coords[inner] = arith::MulIOp::create(rewriter, loc, coords[inner],
                                          constant(rewriter, kLanes));
    SmallVector<Value> laneInner;
    for (int64_t lane = 0; lane < kLanes; ++lane)
      laneInner.push_back(
          lane == 0 ? coords[inner]
                    : arith::AddIOp::create(rewriter, loc, coords[inner],
                                            constant(rewriter, lane))
                          .getResult());
    auto coordsOfLane = [&](int64_t lane) {
      SmallVector<Value> c = coords;
      c[inner] = laneInner[lane];
      return c;
    };

    // Operand values per lane (only those the body reads).
    SmallVector<SmallVector<Value>> laneValues(op->getNumOperands());
    for (OpOperand &operand : op->getOpOperands()) {
      unsigned i = operand.getOperandNumber();
      if (!op.payloadUsesValueFromOperand(&operand))
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      Value memref = operand.get();
      if (!isa<MemRefType>(memref.getType())) {
        laneValues[i].assign(kLanes, memref); // a scalar operand
        continue;
      }
      switch (classify(op, operand, inner)) {
      case Access::Vector: {
        auto type = cast<MemRefType>(memref.getType());
        auto vectorType = VectorType::get({kLanes}, type.getElementType());
        Value v = vector::LoadOp::create(
            rewriter, loc, vectorType, memref,
            indicesAt(rewriter, loc, map, coords), /*nontemporal=*/false,
            llvm::MaybeAlign(kLanes * elementBytes(type)));
        for (int64_t lane = 0; lane < kLanes; ++lane)
          laneValues[i].push_back(
              vector::ExtractOp::create(rewriter, loc, v, lane));
        break;
      }
      case Access::Uniform: {
        Value s = memref::LoadOp::create(rewriter, loc, memref,
                                         indicesAt(rewriter, loc, map, coords));
        laneValues[i].assign(kLanes, s);
        break;
      }
      case Access::PerLane:
        for (int64_t lane = 0; lane < kLanes; ++lane)
          laneValues[i].push_back(memref::LoadOp::create(
              rewriter, loc, memref,
              indicesAt(rewriter, loc, map, coordsOfLane(lane))));
        break;
      }
    }

    // The body once per lane.
    SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
    for (int64_t lane = 0; lane < kLanes; ++lane) {
      IRMapping mapping;
      for (OpOperand &operand : op->getOpOperands())
        if (!laneValues[operand.getOperandNumber()].empty())
          mapping.map(body.getArgument(operand.getOperandNumber()),
                      laneValues[operand.getOperandNumber()][lane]);
      SmallVector<Value> laneCoords = coordsOfLane(lane);
      for (Operation &inner : body.without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
          mapping.map(index.getResult(), laneCoords[index.getDim()]);
          continue;
        }
        rewriter.clone(inner, mapping);
      }
      for (auto [o, value] : llvm::enumerate(yield.getValues()))
        results[o].push_back(mapping.lookupOrDefault(value));
    }

    // One vector store per output.
    for (OpOperand &init : op.getDpsInitsMutable()) {
      auto type = cast<MemRefType>(init.get().getType());
      auto vectorType = VectorType::get({kLanes}, type.getElementType());
      unsigned o = init.getOperandNumber() - op.getNumDpsInputs();
      Value v = vector::FromElementsOp::create(rewriter, loc, vectorType,
                                               results[o]);
      vector::StoreOp::create(rewriter, loc, v, init.get(), coords,
                              /*nontemporal=*/false,
                              llvm::MaybeAlign(kLanes * elementBytes(type)));
    }
    };

  // Up to kMaxUnrolledSteps whole steps unrolled, more as a loop (every
  // unrolled step keeps its lanes' values live); a last partial step
  // guarded.
  int64_t wholeSteps = total / numThreads;
  if (wholeSteps <= kMaxUnrolledSteps) {
    for (int64_t step = 0; step < wholeSteps; ++step)
      emitStep(arith::AddIOp::create(rewriter, loc, tid,
                                     constant(rewriter, step * numThreads)));
  } else {
    auto loop = scf::ForOp::create(rewriter, loc, constant(rewriter, 0),
                                   constant(rewriter, wholeSteps * numThreads),
                                   constant(rewriter, numThreads));
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(loop.getBody());
    emitStep(arith::AddIOp::create(rewriter, loc, tid, loop.getInductionVar()));
  }
  if (total % numThreads != 0) {
    OpBuilder::InsertionGuard guard(rewriter);
    Value group = arith::AddIOp::create(
        rewriter, loc, tid, constant(rewriter, wholeSteps * numThreads));
    Value exists =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, group,
                              constant(rewriter, total));
    auto inRange = scf::IfOp::create(rewriter, loc, exists, false);
    rewriter.setInsertionPointToStart(inRange.thenBlock());
    emitStep(group);
  }
  rewriter.eraseOp(op);
  return true;
}
