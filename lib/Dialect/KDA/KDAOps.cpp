//===- KDAOps.cpp - KDA problem-level ops ---------------------------------===//

#include "kda/Dialect/KDA/KDAOps.h"
#include "kda/Dialect/KDA/KDAVerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kda;

#define GET_OP_CLASSES
#include "KDA/KDAOps.cpp.inc"

/// Layouts shared by the verifiers.
static constexpr StringRef kQKLayout[] = {"B", "T", "H", "K"};
static constexpr StringRef kGateLayout[] = {"B", "T", "HV", "K"};
static constexpr StringRef kValueLayout[] = {"B", "T", "HV", "V"};
static constexpr StringRef kBetaLayout[] = {"B", "T", "HV"};
static constexpr StringRef kChunkLayout[] = {"B", "T", "HV", "BT"};
static constexpr StringRef kSubChunkLayout[] = {"B", "T", "HV", "BC"};

/// The element type of `value`.
static Type elementTypeOf(Value value) {
  return getElementTypeOrSelf(value.getType());
}

/// Suffix of state shape mismatch messages, naming the layout in use.
static std::string stateLayoutNote(StateLayout layout) {
  return layout == StateLayout::kv
             ? " (state_layout kv: states are [.., K, V])"
             : " (state_layout vk: states are [.., V, K])";
}

//===----------------------------------------------------------------------===//
// L2NormOp
//===----------------------------------------------------------------------===//

LogicalResult L2NormOp::verify() {
  Operation *op = getOperation();
  ShapeChecker shapes(op);
  if (failed(shapes.check(getX(), "x", kQKLayout)) ||
      failed(shapes.checkHeadsAndFeatures()) ||
      failed(shapes.check(getResult(), "result", kQKLayout)) ||
      failed(verifyElementType(op, getResult(), "result",
                               elementTypeOf(getX()), "operand 'x'")) ||
      failed(verifyPositiveFinite(op, "eps", getEpsAttr().getValue())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// BetaActivationOp
//===----------------------------------------------------------------------===//

LogicalResult BetaActivationOp::verify() {
  Operation *op = getOperation();
  ShapeChecker shapes(op);
  if (failed(shapes.check(getBetaRaw(), "beta_raw", kBetaLayout)) ||
      failed(shapes.checkHeadsAndFeatures()) ||
      failed(shapes.check(getResult(), "result", kBetaLayout)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// GateCumsumOp
//===----------------------------------------------------------------------===//

LogicalResult GateCumsumOp::verify() {
  Operation *op = getOperation();
  ShapeChecker shapes(op);
  if (failed(shapes.check(getG(), "g", kGateLayout)) ||
      failed(shapes.checkHeadsAndFeatures()))
    return failure();
  auto gType = cast<RankedTensorType>(getG().getType());
  auto resultType = cast<RankedTensorType>(getResult().getType());
  if (resultType.getRank() != 4 ||
      failed(verifyCompatibleShape(resultType.getShape(), gType.getShape())))
    return emitOpError() << "result must have the shape of operand 'g' "
                            "[B, T, HV, K], got "
                         << resultType;
  if (failed(verifyChunkSize(op, getChunkSize())) ||
      failed(verifySeqLens(op, getCuSeqlens(), gType.getDimSize(0))))
    return failure();
  return verifyGateConfig(op, getGateMode(), getLowerBound(), getALog(),
                          getDtBias(), gType.getDimSize(2),
                          gType.getDimSize(3));
}

//===----------------------------------------------------------------------===//
// IntraDiagOp
//===----------------------------------------------------------------------===//

LogicalResult IntraDiagOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyChunkSize(op, getChunkSize())) ||
      failed(verifySubChunkSize(op, getSubChunkSize())) ||
      failed(verifyPositiveFinite(op, "scale", getScaleAttr().getValue())))
    return failure();
  ShapeChecker shapes(op);
  shapes.bind("BT", getChunkSize(), "attribute 'chunk_size'");
  shapes.bind("BC", getSubChunkSize(), "attribute 'sub_chunk_size'");
  Type ioType = elementTypeOf(getQ());
  if (failed(shapes.check(getQ(), "q", kQKLayout)) ||
      failed(shapes.check(getK(), "k", kQKLayout)) ||
      failed(verifyElementType(op, getK(), "k", ioType, "operand 'q'")) ||
      failed(shapes.check(getG(), "G", kGateLayout)) ||
      failed(shapes.check(getBeta(), "beta", kBetaLayout)) ||
      failed(shapes.checkHeadsAndFeatures()) ||
      failed(verifySeqLens(op, getCuSeqlens(), shapes.lookup("B"))))
    return failure();
  if (failed(shapes.check(getAqk(), "Aqk", kChunkLayout)) ||
      failed(verifyElementType(op, getAqk(), "Aqk", ioType, "operand 'q'")) ||
      failed(shapes.check(getAkkd(), "Akkd", kSubChunkLayout)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// InterSolveOp
//===----------------------------------------------------------------------===//

LogicalResult InterSolveOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyChunkSize(op, getChunkSize())) ||
      failed(verifySubChunkSize(op, getSubChunkSize())) ||
      failed(verifyPositiveFinite(op, "scale", getScaleAttr().getValue())))
    return failure();
  ShapeChecker shapes(op);
  shapes.bind("BT", getChunkSize(), "attribute 'chunk_size'");
  shapes.bind("BC", getSubChunkSize(), "attribute 'sub_chunk_size'");
  Type ioType = elementTypeOf(getQ());
  if (failed(shapes.check(getQ(), "q", kQKLayout)) ||
      failed(shapes.check(getK(), "k", kQKLayout)) ||
      failed(verifyElementType(op, getK(), "k", ioType, "operand 'q'")) ||
      failed(shapes.check(getG(), "G", kGateLayout)) ||
      failed(shapes.check(getBeta(), "beta", kBetaLayout)) ||
      failed(shapes.check(getAqk(), "Aqk", kChunkLayout)) ||
      failed(verifyElementType(op, getAqk(), "Aqk", ioType, "operand 'q'")) ||
      failed(shapes.check(getAkkd(), "Akkd", kSubChunkLayout)) ||
      failed(shapes.checkHeadsAndFeatures()) ||
      failed(verifySeqLens(op, getCuSeqlens(), shapes.lookup("B"))))
    return failure();
  if (failed(shapes.check(getAqkOut(), "Aqk_out", kChunkLayout)) ||
      failed(verifyElementType(op, getAqkOut(), "Aqk_out", ioType,
                               "operand 'q'")) ||
      failed(shapes.check(getM(), "M", kChunkLayout)) ||
      failed(verifyElementType(op, getM(), "M", ioType, "operand 'q'")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// WYRecomputeOp
//===----------------------------------------------------------------------===//

LogicalResult WYRecomputeOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyChunkSize(op, getChunkSize())))
    return failure();
  ShapeChecker shapes(op);
  shapes.bind("BT", getChunkSize(), "attribute 'chunk_size'");
  Type ioType = elementTypeOf(getK());
  if (failed(shapes.check(getK(), "k", kQKLayout)) ||
      failed(shapes.check(getV(), "v", kValueLayout)) ||
      failed(shapes.check(getG(), "G", kGateLayout)) ||
      failed(shapes.check(getBeta(), "beta", kBetaLayout)) ||
      failed(shapes.check(getM(), "M", kChunkLayout)) ||
      failed(verifyElementType(op, getM(), "M", ioType, "operand 'k'")) ||
      failed(shapes.checkHeadsAndFeatures()) ||
      failed(verifySeqLens(op, getCuSeqlens(), shapes.lookup("B"))))
    return failure();
  if (failed(shapes.check(getW(), "w", kGateLayout)) ||
      failed(verifyElementType(op, getW(), "w", ioType, "operand 'k'")) ||
      failed(shapes.check(getU(), "u", kValueLayout)) ||
      failed(verifyElementType(op, getU(), "u", elementTypeOf(getV()),
                               "operand 'v'")) ||
      failed(shapes.check(getKg(), "kg", kGateLayout)) ||
      failed(verifyElementType(op, getKg(), "kg", ioType, "operand 'k'")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// StateScanOp
//===----------------------------------------------------------------------===//

/// The inputs of both scan ops: kg, w (in kg's element type), u and G.
static LogicalResult checkScanInputs(Operation *op, ShapeChecker &shapes,
                                     Value kg, Value w, Value u, Value G) {
  if (failed(shapes.check(kg, "kg", kGateLayout)) ||
      failed(shapes.check(w, "w", kGateLayout)) ||
      failed(verifyElementType(op, w, "w", elementTypeOf(kg), "operand 'kg'")) ||
      failed(shapes.check(u, "u", kValueLayout)) ||
      failed(shapes.check(G, "G", kGateLayout)))
    return failure();
  return success();
}

/// The states of both scan ops, N bound first: the initial state (if any),
/// then what `between` checks, then the final state (if any).
static LogicalResult checkScanStates(ShapeChecker &shapes, StateLayout layout,
                                     Value cuSeqlens, Value h0, Value ht,
                                     function_ref<LogicalResult()> between) {
  std::string note = stateLayoutNote(layout);
  shapes.bindNumSequences(cuSeqlens);
  shapes.bindNumChunks(cuSeqlens);
  SmallVector<StringRef> stateDims = stateLayout(layout, {"N"});
  if (h0 && failed(shapes.check(h0, "initial_state", stateDims, note)))
    return failure();
  if (failed(between()))
    return failure();
  if (ht && failed(shapes.check(ht, "final_state", stateDims, note)))
    return failure();
  return success();
}

LogicalResult StateScanOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyChunkSize(op, getChunkSize())))
    return failure();
  ShapeChecker shapes(op);
  shapes.bind("BT", getChunkSize(), "attribute 'chunk_size'");
  if (failed(checkScanInputs(op, shapes, getKg(), getW(), getU(), getG())) ||
      failed(shapes.checkHeadsAndFeatures()) ||
      failed(verifySeqLens(op, getCuSeqlens(), shapes.lookup("B"))))
    return failure();
  StateLayout layout = getStateLayout();
  return checkScanStates(
      shapes, layout, getCuSeqlens(), getInitialState(), getFinalState(),
      [&]() -> LogicalResult {
        if (failed(shapes.check(getH(), "h", stateLayout(layout, {"B", "NT"}),
                                stateLayoutNote(layout))) ||
            failed(verifyElementType(op, getH(), "h", elementTypeOf(getKg()),
                                     "operand 'kg'")) ||
            failed(shapes.check(getVNew(), "v_new", kValueLayout)) ||
            failed(verifyElementType(op, getVNew(), "v_new",
                                     elementTypeOf(getU()), "operand 'u'")))
          return failure();
        return success();
      });
}

//===----------------------------------------------------------------------===//
// OutputOp
//===----------------------------------------------------------------------===//

LogicalResult OutputOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyChunkSize(op, getChunkSize())) ||
      failed(verifyPositiveFinite(op, "scale", getScaleAttr().getValue())))
    return failure();
  ShapeChecker shapes(op);
  shapes.bind("BT", getChunkSize(), "attribute 'chunk_size'");
  Type ioType = elementTypeOf(getQ());
  if (failed(shapes.check(getQ(), "q", kQKLayout)) ||
      failed(shapes.check(getG(), "G", kGateLayout)) ||
      failed(shapes.check(getAqk(), "Aqk", kChunkLayout)) ||
      failed(verifyElementType(op, getAqk(), "Aqk", ioType, "operand 'q'")) ||
      failed(shapes.check(getVNew(), "v_new", kValueLayout)) ||
      failed(shapes.checkHeadsAndFeatures()) ||
      failed(verifySeqLens(op, getCuSeqlens(), shapes.lookup("B"))))
    return failure();
  StateLayout layout = getStateLayout();
  shapes.bindNumChunks(getCuSeqlens());
  if (failed(shapes.check(getH(), "h", stateLayout(layout, {"B", "NT"}),
                          stateLayoutNote(layout))) ||
      failed(verifyElementType(op, getH(), "h", ioType, "operand 'q'")) ||
      failed(shapes.check(getO(), "o", kValueLayout)) ||
      failed(verifyElementType(op, getO(), "o", elementTypeOf(getVNew()),
                               "operand 'v_new'")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// StateScanOutputOp
//===----------------------------------------------------------------------===//

LogicalResult StateScanOutputOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyChunkSize(op, getChunkSize())) ||
      failed(verifyPositiveFinite(op, "scale", getScaleAttr().getValue())))
    return failure();
  ShapeChecker shapes(op);
  shapes.bind("BT", getChunkSize(), "attribute 'chunk_size'");
  Type ioType = elementTypeOf(getKg());
  if (failed(checkScanInputs(op, shapes, getKg(), getW(), getU(), getG())) ||
      failed(shapes.check(getQ(), "q", kQKLayout)) ||
      failed(verifyElementType(op, getQ(), "q", ioType, "operand 'kg'")) ||
      failed(shapes.check(getAqk(), "Aqk", kChunkLayout)) ||
      failed(verifyElementType(op, getAqk(), "Aqk", ioType, "operand 'kg'")) ||
      failed(shapes.checkHeadsAndFeatures()) ||
      failed(verifySeqLens(op, getCuSeqlens(), shapes.lookup("B"))))
    return failure();
  return checkScanStates(
      shapes, getStateLayout(), getCuSeqlens(), getInitialState(),
      getFinalState(), [&]() -> LogicalResult {
        if (failed(shapes.check(getO(), "o", kValueLayout)) ||
            failed(verifyElementType(op, getO(), "o", elementTypeOf(getU()),
                                     "operand 'u'")))
          return failure();
        return success();
      });
}

//===----------------------------------------------------------------------===//
// ChunkFwdOp
//===----------------------------------------------------------------------===//

float ChunkFwdOp::getEffectiveScale() {
  if (std::optional<llvm::APFloat> scale = getScale())
    return scale->convertToFloat();
  int64_t k = cast<RankedTensorType>(getQ().getType()).getDimSize(3);
  return 1.0f / std::sqrt(static_cast<float>(k));
}

LogicalResult ChunkFwdOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyChunkSize(op, getChunkSize())) ||
      failed(verifySubChunkSize(op, getSubChunkSize())))
    return failure();
  if (std::optional<llvm::APFloat> scale = getScale())
    if (failed(verifyPositiveFinite(op, "scale", *scale)))
      return failure();

  ShapeChecker shapes(op);
  Type ioType = elementTypeOf(getQ());
  if (failed(shapes.check(getQ(), "q", kQKLayout)) ||
      failed(shapes.check(getK(), "k", kQKLayout)) ||
      failed(verifyElementType(op, getK(), "k", ioType, "operand 'q'")) ||
      failed(shapes.check(getG(), "g", kGateLayout)) ||
      failed(shapes.check(getBeta(), "beta", kBetaLayout)) ||
      failed(shapes.check(getV(), "v", kValueLayout)) ||
      failed(shapes.checkHeadsAndFeatures()) ||
      failed(verifySeqLens(op, getCuSeqlens(), shapes.lookup("B"))))
    return failure();

  // Gate, beta and safe-gate rules.
  GateMode mode = getGateMode();
  std::optional<llvm::APFloat> lowerBound = getLowerBound();
  if (failed(verifyGateConfig(op, mode, lowerBound, getALog(), getDtBias(),
                              shapes.lookup("HV"), shapes.lookup("K"))))
    return failure();
  if (getSafeGate() && mode == GateMode::softplus)
    return emitOpError("'safe_gate' with an in-kernel gate requires gate_mode "
                       "lower_bound (with 'lower_bound' in [-5, 0)), got "
                       "gate_mode softplus");
  if (getSafeGate() && mode == GateMode::lower_bound && lowerBound &&
      lowerBound->convertToFloat() < -5.0f)
    return emitOpError() << "attribute 'lower_bound' must be in [-5, 0) with "
                            "'safe_gate', got "
                         << formatFloat(*lowerBound);
  if (getAllowNegEigval() && !getUseBetaSigmoid())
    return emitOpError("attribute 'allow_neg_eigval' requires "
                       "'use_beta_sigmoid'");

  // States and results.
  StateLayout layout = getStateLayout();
  std::string note = stateLayoutNote(layout);
  shapes.bindNumSequences(getCuSeqlens());
  SmallVector<StringRef> stateDims = stateLayout(layout, {"N"});
  if (Value h0 = getInitialState())
    if (failed(shapes.check(h0, "initial_state", stateDims, note)))
      return failure();
  if (failed(shapes.check(getO(), "o", kValueLayout)) ||
      failed(verifyElementType(op, getO(), "o", ioType, "operand 'q'")))
    return failure();
  if (Value ht = getFinalState())
    if (failed(shapes.check(ht, "final_state", stateDims, note)))
      return failure();
  return success();
}
