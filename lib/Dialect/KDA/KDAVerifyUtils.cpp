//===- KDAVerifyUtils.cpp - shared shape checks for kda ops ---------------===//

#include "kda/Dialect/KDA/KDAVerifyUtils.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::kda;

std::string kda::formatFloat(const llvm::APFloat &value) {
  SmallString<16> text;
  value.toString(text);
  return std::string(text);
}

std::string kda::describeValue(Operation *op, Value value, StringRef name) {
  auto result = dyn_cast<OpResult>(value);
  bool isResult = result && result.getOwner() == op;
  return ((isResult ? "result '" : "operand '") + name + "'").str();
}

LogicalResult kda::verifyRank(Operation *op, Value value, StringRef name,
                              int64_t rank, StringRef layout) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return op->emitOpError() << describeValue(op, value, name)
                             << " must be a ranked tensor " << layout;
  if (type.getRank() != rank)
    return op->emitOpError() << describeValue(op, value, name)
                             << " must have rank " << rank << " " << layout
                             << ", got rank " << type.getRank();
  return success();
}

LogicalResult kda::verifyStaticDim(Operation *op, Value value, StringRef name,
                                   int64_t dim, StringRef dimName) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.isDynamicDim(dim))
    return op->emitOpError()
           << describeValue(op, value, name) << " must have a static "
           << dimName << " (dimension " << dim
           << "): kernels are specialized on it";
  return success();
}

LogicalResult kda::verifyDimMatches(Operation *op, Value value, StringRef name,
                                    int64_t dim, StringRef dimName,
                                    int64_t expected, StringRef what,
                                    StringRef note) {
  auto type = cast<RankedTensorType>(value.getType());
  if (ShapedType::isDynamic(expected) || type.isDynamicDim(dim))
    return success();
  if (type.getDimSize(dim) != expected)
    return op->emitOpError()
           << describeValue(op, value, name) << " has " << dimName << " = "
           << type.getDimSize(dim) << " (dimension " << dim << "), but "
           << what << " is " << expected << note;
  return success();
}

LogicalResult kda::verifyElementType(Operation *op, Value value,
                                     StringRef name, Type expected,
                                     StringRef what) {
  Type actual = getElementTypeOrSelf(value.getType());
  if (actual != expected)
    return op->emitOpError()
           << describeValue(op, value, name) << " has element type " << actual
           << ", but the element type of " << what << " is " << expected;
  return success();
}

LogicalResult kda::verifySeqLens(Operation *op, Value cuSeqlens,
                                 int64_t batch) {
  if (!cuSeqlens)
    return success();
  auto type = cast<RankedTensorType>(cuSeqlens.getType());
  if (type.getRank() != 1)
    return op->emitOpError()
           << "operand 'cu_seqlens' must have rank 1 [N + 1], got rank "
           << type.getRank();
  if (!type.isDynamicDim(0) && type.getDimSize(0) < 2)
    return op->emitOpError() << "operand 'cu_seqlens' must hold at least 2 "
                                "offsets (one sequence), got "
                             << type.getDimSize(0);
  if (!ShapedType::isDynamic(batch) && batch != 1)
    return op->emitOpError()
           << "varlen inputs (with 'cu_seqlens') must have batch size B = 1, "
              "got B = "
           << batch;
  return success();
}

LogicalResult kda::verifyChunkSize(Operation *op, int64_t chunkSize) {
  if (chunkSize != 16 && chunkSize != 32 && chunkSize != 64)
    return op->emitOpError()
           << "attribute 'chunk_size' must be 16, 32 or 64, got "
                             << chunkSize;
  return success();
}

LogicalResult kda::verifySubChunkSize(Operation *op, int64_t subChunkSize) {
  if (subChunkSize != 16)
    return op->emitOpError()
           << "attribute 'sub_chunk_size' must be 16, got " << subChunkSize;
  return success();
}

LogicalResult kda::verifyPositiveFinite(Operation *op, StringRef name,
                                        const llvm::APFloat &value) {
  if (!value.isFinite() || value.isNegative() || value.isZero())
    return op->emitOpError() << "attribute '" << name
                             << "' must be finite and positive, got "
                             << formatFloat(value);
  return success();
}

LogicalResult kda::verifyGateConfig(Operation *op, GateMode mode,
                                    std::optional<llvm::APFloat> lowerBound,
                                    Value aLog, Value dtBias, int64_t hv,
                                    int64_t k) {
  if (mode == GateMode::precomputed) {
    if (aLog)
      return op->emitOpError("operand 'a_log' is only allowed with an "
                             "in-kernel gate (gate_mode softplus or "
                             "lower_bound)");
    if (dtBias)
      return op->emitOpError("operand 'dt_bias' is only allowed with an "
                             "in-kernel gate (gate_mode softplus or "
                             "lower_bound)");
  }
  if (mode == GateMode::softplus && !aLog)
    return op->emitOpError("gate_mode softplus requires operand 'a_log'");
  if (mode != GateMode::lower_bound && lowerBound)
    return op->emitOpError(
        "attribute 'lower_bound' requires gate_mode lower_bound");
  if (mode == GateMode::lower_bound) {
    if (!lowerBound)
      return op->emitOpError(
          "gate_mode lower_bound requires attribute 'lower_bound'");
    if (!lowerBound->isFinite() || !lowerBound->isNegative() ||
        lowerBound->isZero())
      return op->emitOpError()
             << "attribute 'lower_bound' must be finite and negative, got "
             << formatFloat(*lowerBound);
  }
  if (aLog) {
    if (failed(verifyRank(op, aLog, "a_log", 1, "[HV]")) ||
        failed(verifyDimMatches(op, aLog, "a_log", 0, "HV", hv,
                                "HV of operand 'g'")))
      return failure();
  }
  if (dtBias) {
    auto type = cast<RankedTensorType>(dtBias.getType());
    if (type.getRank() == 2) {
      if (failed(verifyDimMatches(op, dtBias, "dt_bias", 0, "HV", hv,
                                  "HV of operand 'g'")) ||
          failed(verifyDimMatches(op, dtBias, "dt_bias", 1, "K", k,
                                  "K of operand 'g'")))
        return failure();
    } else if (type.getRank() == 1) {
      int64_t flat = ShapedType::kDynamic;
      if (!ShapedType::isDynamic(hv) && !ShapedType::isDynamic(k) &&
          llvm::MulOverflow(hv, k, flat))
        flat = ShapedType::kDynamic;
      if (failed(verifyDimMatches(op, dtBias, "dt_bias", 0, "HV * K", flat,
                                  "HV * K of operand 'g'")))
        return failure();
    } else {
      return op->emitOpError() << "operand 'dt_bias' must have rank 2 [HV, K] "
                                  "or rank 1 [HV * K], got rank "
                               << type.getRank();
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ShapeChecker
//===----------------------------------------------------------------------===//

/// Dimensions that kernels are specialized on; they must be static.
static bool isSpecializedDim(StringRef sym) {
  static constexpr llvm::StringLiteral specialized[] = {"K", "V", "BT",
                                                        "BC"};
  return llvm::is_contained(specialized, sym);
}

void ShapeChecker::bind(StringRef sym, int64_t size, StringRef what) {
  bindings[sym] = Binding{size, what.str(), what.str()};
}

LogicalResult ShapeChecker::check(Value value, StringRef name,
                                  ArrayRef<StringRef> layout, StringRef note) {
  std::string layoutText = "[" + llvm::join(layout, ", ") + "]";
  if (failed(verifyRank(op, value, name, layout.size(), layoutText)))
    return failure();
  auto type = cast<RankedTensorType>(value.getType());
  std::string owner = describeValue(op, value, name);
  for (auto [dim, sym] : llvm::enumerate(layout)) {
    if (sym.empty())
      continue;
    if (isSpecializedDim(sym) &&
        failed(verifyStaticDim(op, value, name, dim, sym)))
      return failure();
    int64_t size = type.getDimSize(dim);
    auto it = bindings.find(sym);
    if (it == bindings.end() || ShapedType::isDynamic(it->second.size)) {
      // First value to give this symbol a static size binds it.
      if (it == bindings.end() || !ShapedType::isDynamic(size))
        bindings[sym] = Binding{size, (sym + " of " + owner).str(), owner};
      continue;
    }
    if (failed(verifyDimMatches(op, value, name, dim, sym, it->second.size,
                                it->second.what, note)))
      return failure();
  }
  return success();
}

LogicalResult ShapeChecker::checkHeadsAndFeatures() {
  auto get = [&](StringRef sym) -> const Binding * {
    auto it = bindings.find(sym);
    if (it == bindings.end() || ShapedType::isDynamic(it->second.size))
      return nullptr;
    return &it->second;
  };
  for (StringRef sym : {"H", "HV"}) {
    if (const Binding *b = get(sym); b && b->size < 1)
      return op->emitOpError() << b->owner << " has " << sym << " = "
                               << b->size << ", but at least one head is "
                               << "required";
  }
  const Binding *h = get("H"), *hv = get("HV");
  if (h && hv && hv->size % h->size != 0)
    return op->emitOpError()
           << "HV = " << hv->size << " (" << hv->owner
           << ") is not a multiple of H = " << h->size << " (" << h->owner
           << "): each value head must read exactly one q/k head";
  for (StringRef sym : {"K", "V"}) {
    if (const Binding *b = get(sym); b && (b->size < 1 || b->size > 256))
      return op->emitOpError() << b->owner << " has " << sym << " = "
                               << b->size << ", but " << sym
                               << " must be in [1, 256]";
  }
  return success();
}

void ShapeChecker::bindNumSequences(Value cuSeqlens) {
  if (cuSeqlens) {
    auto type = cast<RankedTensorType>(cuSeqlens.getType());
    int64_t n = ShapedType::kDynamic;
    if (type.getRank() == 1 && !type.isDynamicDim(0) &&
        type.getDimSize(0) >= 2)
      n = type.getDimSize(0) - 1;
    bind("N", n, "the number of sequences (size of operand 'cu_seqlens' "
                 "minus 1)");
    return;
  }
  auto it = bindings.find("B");
  if (it == bindings.end())
    return;
  bind("N", it->second.size,
       "the number of sequences (" + it->second.what + ")");
}

void ShapeChecker::bindNumChunks(Value cuSeqlens) {
  int64_t t = lookup("T"), bt = lookup("BT");
  if (ShapedType::isDynamic(t) || ShapedType::isDynamic(bt) || bt <= 0)
    return;
  if (cuSeqlens) {
    auto type = cast<RankedTensorType>(cuSeqlens.getType());
    if (type.getRank() != 1 || type.isDynamicDim(0) || type.getDimSize(0) < 1)
      return;
    int64_t n = type.getDimSize(0) - 1;
    bind("NC", getNumChunkPrograms(t, bt, /*varlen=*/true, n),
         "floor(T / chunk_size) + N = floor(" + std::to_string(t) + " / " +
             std::to_string(bt) + ") + " + std::to_string(n));
    return;
  }
  std::string what = "ceil(T / chunk_size) = ceil(" + std::to_string(t) +
                     " / " + std::to_string(bt) + ")";
  const int64_t chunks = getNumChunkPrograms(t, bt, /*varlen=*/false, 0);
  bind("NT", chunks, what);
  bind("NC", chunks, what);
}

int64_t ShapeChecker::lookup(StringRef sym) const {
  auto it = bindings.find(sym);
  return it == bindings.end() ? ShapedType::kDynamic : it->second.size;
}
