//===- TileOps.cpp - the tile DSL ops -------------------------------------===//

#include "kda/Dialect/Tile/TileOps.h"
#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::kda::tile;

#define GET_OP_CLASSES
#include "Tile/TileOps.cpp.inc"

bool mlir::kda::tile::isInsideKernel(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  return func && func->hasAttr(TileDialect::getKernelAttrName());
}

static LogicalResult verifyInKernel(Operation *op) {
  if (!isInsideKernel(op))
    return op->emitOpError("is only valid inside a tile kernel (a func.func "
                           "with the 'tile.kernel' attribute)");
  return success();
}

LogicalResult ProgramIdOp::verify() { return verifyInKernel(*this); }
LogicalResult NumProgramsOp::verify() { return verifyInKernel(*this); }

//===----------------------------------------------------------------------===//
// Load / store
//===----------------------------------------------------------------------===//

/// Shared checks of tile.load and tile.store addressing.
static LogicalResult verifyTileAccess(Operation *op, MemRefType memType,
                                      RankedTensorType tileType,
                                      size_t numIndices, size_t numBounds,
                                      ArrayRef<int64_t> dims) {
  if (static_cast<int64_t>(numIndices) != memType.getRank())
    return op->emitOpError() << "expects one index per memref dimension ("
                             << memType.getRank() << "), got " << numIndices;
  if (static_cast<int64_t>(dims.size()) != tileType.getRank())
    return op->emitOpError() << "'dims' must list one memref dimension per "
                                "tile dimension ("
                             << tileType.getRank() << "), got " << dims.size();
  if (!tileType.hasStaticShape())
    return op->emitOpError() << "tile type must be statically shaped, got "
                             << tileType;
  if (numBounds != 0 && numBounds != dims.size())
    return op->emitOpError() << "'bounds' must give one bound per tile "
                                "dimension ("
                             << dims.size() << "), got " << numBounds;
  llvm::SmallSet<int64_t, 4> seen;
  int64_t prev = -1;
  for (int64_t d : dims) {
    if (d < 0 || d >= memType.getRank())
      return op->emitOpError() << "'dims' entry " << d
                               << " is not a dimension of the memref (rank "
                               << memType.getRank() << ")";
    if (!seen.insert(d).second)
      return op->emitOpError() << "'dims' lists dimension " << d << " twice";
    if (d < prev)
      return op->emitOpError("'dims' must be increasing");
    prev = d;
  }
  if (memType.getElementType() != tileType.getElementType())
    return op->emitOpError() << "tile element type "
                             << tileType.getElementType()
                             << " must match the memref element type "
                             << memType.getElementType();
  return success();
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getSourceMutable());
}

LogicalResult LoadOp::verify() {
  auto tileType = cast<RankedTensorType>(getResult().getType());
  if (failed(verifyTileAccess(*this, cast<MemRefType>(getSource().getType()),
                              tileType, getIndices().size(),
                              getBounds().size(), getDims())))
    return failure();
  if (auto padding = getPaddingAttr()) {
    // Print the attribute itself: an untyped one (say a string) has type
    // 'none', which would say little.
    if (padding.getType() != tileType.getElementType())
      return emitOpError() << "'padding' must have the tile element type "
                           << tileType.getElementType() << ", got "
                           << Attribute(padding);
  }
  return success();
}

void StoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), &getDestMutable());
}

LogicalResult StoreOp::verify() {
  return verifyTileAccess(*this, cast<MemRefType>(getDest().getType()),
                          cast<RankedTensorType>(getValue().getType()),
                          getIndices().size(), getBounds().size(), getDims());
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  auto acc = cast<RankedTensorType>(getAcc().getType());
  auto res = cast<RankedTensorType>(getResult().getType());
  if (a.getRank() != 2 || b.getRank() != 2 || acc.getRank() != 2)
    return emitOpError("operands must be 2-D tiles");
  if (!a.hasStaticShape() || !b.hasStaticShape() || !acc.hasStaticShape())
    return emitOpError("operands must be statically shaped");
  if (a.getDimSize(1) != b.getDimSize(0))
    return emitOpError() << "contraction sizes differ: a is " << a
                         << " and b is " << b;
  if (acc.getDimSize(0) != a.getDimSize(0) ||
      acc.getDimSize(1) != b.getDimSize(1))
    return emitOpError() << "accumulator must be " << a.getDimSize(0) << "x"
                         << b.getDimSize(1) << ", got " << acc;
  if (res != acc)
    return emitOpError("result type must equal the accumulator type");
  if (a.getElementType() != b.getElementType())
    return emitOpError("operands a and b must have the same element type");
  if (!acc.getElementType().isF32())
    return emitOpError("accumulator must be f32");
  return success();
}

static LogicalResult verifyDimAttr(Operation *op, int64_t dim, int64_t rank) {
  if (dim < 0 || dim >= rank)
    return op->emitOpError() << "'dim' = " << dim
                             << " is out of range for a rank-" << rank
                             << " tile";
  return success();
}

LogicalResult ReduceOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (failed(verifyDimAttr(*this, getDim(), in.getRank())))
    return failure();
  SmallVector<int64_t> expected(in.getShape());
  expected.erase(expected.begin() + getDim());
  if (out.getShape() != ArrayRef<int64_t>(expected) ||
      out.getElementType() != in.getElementType())
    return emitOpError() << "result must be the input without dimension "
                         << getDim() << ", got " << out;
  return success();
}

LogicalResult ScanOp::verify() {
  return verifyDimAttr(*this, getDim(),
                       cast<RankedTensorType>(getInput().getType()).getRank());
}


//===----------------------------------------------------------------------===//
// convert_layout
//===----------------------------------------------------------------------===//

/// The warps of the program around `op`: the threads of its kernel's
/// tile.tuning / 32, or 0 when unknown.
static int64_t programWarps(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func)
    return 0;
  auto tuning = TuningAttr::lookup(func);
  return tuning ? tuning.getThreads() / DistLayoutAttr::kWarpSize : 0;
}

LogicalResult ConvertLayoutOp::verify() {
  int64_t warps = programWarps(*this);
  for (auto [what, value] : {std::pair<StringRef, Value>{"input", getInput()},
                             {"result", getResult()}}) {
    auto layout = dyn_cast_or_null<DistLayoutAttr>(
        cast<RankedTensorType>(value.getType()).getEncoding());
    if (!layout)
      return emitOpError() << what << " must have a #tile.dist layout, got "
                           << value.getType();
    if (warps && layout.getMinWarps() > warps)
      return emitOpError() << what << " layout tells apart "
                           << layout.getMinWarps()
                           << " warps, the program has " << warps;
  }
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<ConvertLayoutOp>()) {
    if (inner.getInput().getType() == getResult().getType())
      return inner.getInput();
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

LogicalResult TransOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  SmallVector<int64_t> perm = getTransPermutation(*this);
  if (static_cast<int64_t>(perm.size()) != in.getRank() ||
      !isPermutationVector(perm))
    return emitOpError("'permutation' must be a permutation of the input "
                       "dimensions");
  if (out.getRank() != in.getRank() ||
      out.getElementType() != in.getElementType())
    return emitOpError("result must have the input's rank and element type");
  for (int64_t i = 0; i < in.getRank(); ++i)
    if (out.getDimSize(i) != in.getDimSize(perm[i]))
      return emitOpError() << "result dimension " << i << " must be "
                           << in.getDimSize(perm[i]) << ", got "
                           << out.getDimSize(i);
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  ArrayRef<int64_t> dims = getDims();
  if (out.getRank() != in.getRank() + static_cast<int64_t>(dims.size()))
    return emitOpError() << "result rank must be the input rank plus the "
                            "number of 'dims', got "
                         << out.getRank();
  if (out.getElementType() != in.getElementType())
    return emitOpError("result must have the input's element type");
  llvm::SmallSet<int64_t, 4> added;
  for (int64_t d : dims) {
    if (d < 0 || d >= out.getRank() || !added.insert(d).second)
      return emitOpError() << "'dims' entry " << d
                           << " is out of range or repeated";
  }
  int64_t j = 0;
  for (int64_t i = 0; i < out.getRank(); ++i) {
    if (added.contains(i))
      continue;
    if (out.getDimSize(i) != in.getDimSize(j))
      return emitOpError() << "result dimension " << i
                           << " must match input dimension " << j << " ("
                           << in.getDimSize(j) << ")";
    ++j;
  }
  return success();
}

LogicalResult SplatOp::verify() {
  auto out = cast<RankedTensorType>(getResult().getType());
  if (out.getElementType() != getValue().getType())
    return emitOpError("result element type must be the scalar's type");
  if (!out.hasStaticShape())
    return emitOpError("result must be statically shaped");
  return success();
}

LogicalResult IotaOp::verify() {
  auto out = cast<RankedTensorType>(getResult().getType());
  if (!out.hasStaticShape())
    return emitOpError("result must be statically shaped");
  return verifyDimAttr(*this, getDim(), out.getRank());
}

LogicalResult TriMaskOp::verify() {
  auto out = cast<RankedTensorType>(getResult().getType());
  if (out.getRank() != 2 || !out.hasStaticShape())
    return emitOpError("result must be a statically shaped 2-D tile");
  return success();
}

//===----------------------------------------------------------------------===//
// Varlen
//===----------------------------------------------------------------------===//

void VarlenChunkOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getCuSeqlensMutable());
}

LogicalResult VarlenChunkOp::verify() {
  // The I64Attr accessor returns uint64_t: read the signed value, or a
  // negative chunk size would pass as a huge positive one.
  int64_t chunkSize = getChunkSizeAttr().getInt();
  if (chunkSize <= 0)
    return emitOpError() << "'chunk_size' must be positive, got " << chunkSize;
  return verifyInKernel(*this);
}

//===----------------------------------------------------------------------===//
// Launch
//===----------------------------------------------------------------------===//

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *symbol =
      symbolTable.lookupNearestSymbolFrom(*this, getKernelAttr());
  if (!symbol)
    return emitOpError() << "kernel '" << getKernel()
                         << "' does not name a func.func (no such symbol)";
  auto func = dyn_cast<func::FuncOp>(symbol);
  if (!func)
    return emitOpError() << "kernel '" << getKernel()
                         << "' does not name a func.func (it names a '"
                         << symbol->getName() << "')";
  if (!func->hasAttr(TileDialect::getKernelAttrName()))
    return emitOpError() << "'" << getKernel()
                         << "' is not a tile kernel (missing the 'tile.kernel' "
                            "attribute)";
  FunctionType type = func.getFunctionType();
  if (type.getNumResults() != 0)
    return emitOpError("tile kernels must not return values");
  if (TypeRange(type.getInputs()) != TypeRange(getArgs().getTypes())) {
    auto printTypes = [](TypeRange types) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "(";
      llvm::interleaveComma(types, os);
      os << ")";
      return text;
    };
    return emitOpError() << "argument types "
                         << printTypes(getArgs().getTypes())
                         << " do not match the parameter types "
                         << printTypes(type.getInputs()) << " of kernel '"
                         << getKernel() << "'";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Triangular inverse
//===----------------------------------------------------------------------===//

LogicalResult UnitLowerInverseOp::verify() {
  if (getInputs().empty())
    return emitOpError("expects at least one matrix");
  if (getInputs().size() != getInits().size())
    return emitOpError() << "expects as many inits as inputs (got "
                         << getInputs().size() << " inputs and "
                         << getInits().size() << " inits)";
  bool tensors = isa<RankedTensorType>(getInputs().front().getType());
  for (auto [i, input, init] :
       llvm::enumerate(getInputs(), getInits())) {
    auto type = cast<ShapedType>(input.getType());
    if (isa<RankedTensorType>(type) != tensors ||
        isa<RankedTensorType>(init.getType()) != tensors ||
        (!tensors && (!isa<MemRefType>(type) ||
                      !isa<MemRefType>(init.getType()))))
      return emitOpError(
          "expects all operands to be tiles (ranked tensors) or all to be "
          "memrefs");
    if (!type.hasRank() || type.getRank() != 2 || !type.hasStaticShape() ||
        type.getDimSize(0) != type.getDimSize(1) ||
        !type.getElementType().isF32())
      return emitOpError() << "expects square, statically shaped 2-D f32 "
                              "matrices, got "
                           << type << " for input #" << i;
    auto initType = cast<ShapedType>(init.getType());
    if (initType.getShape() != type.getShape() ||
        initType.getElementType() != type.getElementType())
      return emitOpError() << "expects init #" << i << " of the shape and "
                           << "element type of its input, got " << initType
                           << " for " << type;
  }
  return success();
}

void UnitLowerInverseOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // On tiles the op is pure; on buffers it reads its inputs and writes its
  // inits.
  for (OpOperand &operand : getOperation()->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    MemoryEffects::Effect *effect =
        isDpsInit(&operand)
            ? static_cast<MemoryEffects::Effect *>(MemoryEffects::Write::get())
            : MemoryEffects::Read::get();
    effects.emplace_back(effect, &operand,
                         SideEffects::DefaultResource::get());
  }
}

bool UnitLowerInverseOp::bufferizesToMemoryRead(
    OpOperand &operand, const bufferization::AnalysisState &) {
  return isDpsInput(&operand);
}

bool UnitLowerInverseOp::bufferizesToMemoryWrite(
    OpOperand &operand, const bufferization::AnalysisState &) {
  return isDpsInit(&operand);
}

bufferization::AliasingValueList UnitLowerInverseOp::getAliasingValues(
    OpOperand &operand, const bufferization::AnalysisState &) {
  if (!isDpsInit(&operand))
    return {};
  return {{getTiedOpResult(&operand), bufferization::BufferRelation::Equivalent}};
}

LogicalResult UnitLowerInverseOp::bufferize(
    RewriterBase &rewriter, const bufferization::BufferizationOptions &options,
    bufferization::BufferizationState &state) {
  SmallVector<Value> inputs, inits;
  for (Value input : getInputs()) {
    FailureOr<Value> buffer =
        bufferization::getBuffer(rewriter, input, options, state);
    if (failed(buffer))
      return failure();
    inputs.push_back(*buffer);
  }
  for (Value init : getInits()) {
    FailureOr<Value> buffer =
        bufferization::getBuffer(rewriter, init, options, state);
    if (failed(buffer))
      return failure();
    inits.push_back(*buffer);
  }
  rewriter.setInsertionPoint(*this);
  UnitLowerInverseOp::create(rewriter, getLoc(), TypeRange{}, inputs, inits);
  bufferization::replaceOpWithBufferizedValues(rewriter, *this, inits);
  return success();
}
