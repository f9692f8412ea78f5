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

namespace {

/// How a stage op's verifier checks one of its operands or results: its
/// shape against `layout` (with `note` appended to mismatch messages; empty:
/// the dimension symbols of `name`, getStageTensorDims) and, when `typeOf`
/// is set, that its element type is that of operand `typeOfName`. A null
/// `value` (an absent optional operand) is skipped.
struct OperandRule {
  Value value;
  StringRef name;
  ArrayRef<StringRef> layout;
  Value typeOf = {};
  StringRef typeOfName = {};
  std::string note = {};
};

} // namespace

/// Checks `rules` in order, each shape before its element type.
static LogicalResult checkOperands(Operation *op, ShapeChecker &shapes,
                                   ArrayRef<OperandRule> rules) {
  for (const OperandRule &rule : rules) {
    if (!rule.value)
      continue;
    ArrayRef<StringRef> layout =
        rule.layout.empty() ? getStageTensorDims(rule.name) : rule.layout;
    assert(!layout.empty() && "an operand rule without dimension symbols");
    if (failed(shapes.check(rule.value, rule.name, layout, rule.note)))
      return failure();
    if (rule.typeOf &&
        failed(verifyElementType(op, rule.value, rule.name,
                                 elementTypeOf(rule.typeOf),
                                 ("operand '" + rule.typeOfName + "'").str())))
      return failure();
  }
  return success();
}

/// The checks every stage op makes of its operands: `inputs` (which bind
/// the sizes), then the head counts and feature sizes, then `cu_seqlens`
/// against the batch size.
static LogicalResult checkStageInputs(Operation *op, ShapeChecker &shapes,
                                      ArrayRef<OperandRule> inputs,
                                      Value cuSeqlens) {
  if (failed(checkOperands(op, shapes, inputs)) ||
      failed(shapes.checkHeadsAndFeatures()) ||
      failed(verifySeqLens(op, cuSeqlens, shapes.lookup("B"))))
    return failure();
  return success();
}

/// The attributes a chunked stage op checks first: `chunk_size`,
/// `sub_chunk_size` (when the op has one) and `scale` (when it has one);
/// then a ShapeChecker with BT (and BC) bound to them.
static FailureOr<ShapeChecker>
startChunkedChecks(Operation *op, int64_t chunkSize,
                   std::optional<int64_t> subChunkSize = std::nullopt,
                   std::optional<llvm::APFloat> scale = std::nullopt) {
  if (failed(verifyChunkSize(op, chunkSize)) ||
      (subChunkSize && failed(verifySubChunkSize(op, *subChunkSize))) ||
      (scale && failed(verifyPositiveFinite(op, "scale", *scale))))
    return failure();
  ShapeChecker shapes(op);
  shapes.bind("BT", chunkSize, "attribute 'chunk_size'");
  if (subChunkSize)
    shapes.bind("BC", *subChunkSize, "attribute 'sub_chunk_size'");
  return shapes;
}

/// A chunked stage op's whole check: its attributes (`shapes`, from
/// startChunkedChecks), `inputs`, the head counts and `cu_seqlens`, then,
/// with NT bound (the chunks of a fixed-length batch), `outputs`.
static LogicalResult verifyStage(Operation *op, FailureOr<ShapeChecker> shapes,
                                 ArrayRef<OperandRule> inputs, Value cuSeqlens,
                                 ArrayRef<OperandRule> outputs) {
  if (failed(shapes) ||
      failed(checkStageInputs(op, *shapes, inputs, cuSeqlens)))
    return failure();
  shapes->bindNumChunks(cuSeqlens);
  return checkOperands(op, *shapes, outputs);
}

/// The inputs the intra-chunk ops (intra_diag, inter_solve) start with: q,
/// k (in q's element type), the gate cumsum G and beta.
static SmallVector<OperandRule> intraChunkInputs(Value q, Value k, Value G,
                                                 Value beta) {
  return {{q, "q"}, {k, "k", {}, q, "q"}, {G, "G"}, {beta, "beta"}};
}

//===----------------------------------------------------------------------===//
// L2NormOp
//===----------------------------------------------------------------------===//

/// The checks of an op that maps one tensor to another of the same layout
/// (l2norm, beta activation): `input`, the head counts and feature sizes,
/// then `result`.
static LogicalResult checkMapping(Operation *op, const OperandRule &input,
                                  const OperandRule &result) {
  ShapeChecker shapes(op);
  return failure(failed(checkOperands(op, shapes, input)) ||
                 failed(shapes.checkHeadsAndFeatures()) ||
                 failed(checkOperands(op, shapes, result)));
}

LogicalResult L2NormOp::verify() {
  Operation *op = getOperation();
  Value x = getX();
  return failure(
      failed(checkMapping(
          op, {x, "x", getStageTensorDims("q")},
          {getResult(), "result", getStageTensorDims("q"), x, "x"})) ||
      failed(verifyPositiveFinite(op, "eps", getEpsAttr().getValue())));
}

//===----------------------------------------------------------------------===//
// BetaActivationOp
//===----------------------------------------------------------------------===//

LogicalResult BetaActivationOp::verify() {
  return checkMapping(getOperation(),
                      {getBetaRaw(), "beta_raw", getStageTensorDims("beta")},
                      {getResult(), "result", getStageTensorDims("beta")});
}

//===----------------------------------------------------------------------===//
// GateCumsumOp
//===----------------------------------------------------------------------===//

LogicalResult GateCumsumOp::verify() {
  Operation *op = getOperation();
  ShapeChecker shapes(op);
  if (failed(shapes.check(getG(), "g", getStageTensorDims("g"))) ||
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
  Value q = getQ();
  return verifyStage(
      getOperation(),
      startChunkedChecks(getOperation(), getChunkSize(), getSubChunkSize(),
                         getScaleAttr().getValue()),
      intraChunkInputs(q, getK(), getG(), getBeta()), getCuSeqlens(),
      {{getAqk(), "Aqk", {}, q, "q"}, {getAkkd(), "Akkd"}});
}

//===----------------------------------------------------------------------===//
// InterSolveOp
//===----------------------------------------------------------------------===//

LogicalResult InterSolveOp::verify() {
  Value q = getQ();
  SmallVector<OperandRule> inputs =
      intraChunkInputs(q, getK(), getG(), getBeta());
  inputs.push_back({getAqk(), "Aqk", {}, q, "q"});
  inputs.push_back({getAkkd(), "Akkd"});
  return verifyStage(
      getOperation(),
      startChunkedChecks(getOperation(), getChunkSize(), getSubChunkSize(),
                         getScaleAttr().getValue()),
      inputs, getCuSeqlens(),
      {{getAqkOut(), "Aqk_out", {}, q, "q"}, {getM(), "M", {}, q, "q"}});
}

//===----------------------------------------------------------------------===//
// WYRecomputeOp
//===----------------------------------------------------------------------===//

LogicalResult WYRecomputeOp::verify() {
  Value k = getK(), v = getV();
  return verifyStage(getOperation(),
                     startChunkedChecks(getOperation(), getChunkSize()),
                     {{k, "k"},
                      {v, "v"},
                      {getG(), "G"},
                      {getBeta(), "beta"},
                      {getM(), "M", {}, k, "k"}},
                     getCuSeqlens(),
                     {{getW(), "w", {}, k, "k"},
                      {getU(), "u", {}, v, "v"},
                      {getKg(), "kg", {}, k, "k"}});
}

//===----------------------------------------------------------------------===//
// StateScanOp
//===----------------------------------------------------------------------===//

/// The inputs of both scan ops: kg, w (in kg's element type), u and G.
static SmallVector<OperandRule> scanInputs(Value kg, Value w, Value u,
                                           Value G) {
  return {{kg, "kg"}, {w, "w", {}, kg, "kg"}, {u, "u"}, {G, "G"}};
}

/// A scan op's whole check: its attributes (`shapes`), `inputs`, the head
/// counts and `cu_seqlens`, then, with N and NT bound, the initial state
/// (if any), `between` and the final state (if any), in `layout`.
static LogicalResult verifyScan(Operation *op, FailureOr<ShapeChecker> shapes,
                                ArrayRef<OperandRule> inputs, Value cuSeqlens,
                                StateLayout layout, Value h0, Value ht,
                                ArrayRef<OperandRule> between) {
  if (failed(shapes) ||
      failed(checkStageInputs(op, *shapes, inputs, cuSeqlens)))
    return failure();
  std::string note = stateLayoutNote(layout);
  shapes->bindNumSequences(cuSeqlens);
  shapes->bindNumChunks(cuSeqlens);
  ArrayRef<StringRef> stateDims = getStateDims(layout);
  return failure(
      failed(checkOperands(op, *shapes,
                           {{h0, "initial_state", stateDims, {}, {}, note}})) ||
      failed(checkOperands(op, *shapes, between)) ||
      failed(checkOperands(op, *shapes,
                           {{ht, "final_state", stateDims, {}, {}, note}})));
}

LogicalResult StateScanOp::verify() {
  StateLayout layout = getStateLayout();
  return verifyScan(getOperation(),
                    startChunkedChecks(getOperation(), getChunkSize()),
                    scanInputs(getKg(), getW(), getU(), getG()), getCuSeqlens(),
                    layout, getInitialState(), getFinalState(),
                    {{getH(), "h", getChunkStateDims(layout), getKg(), "kg",
                      stateLayoutNote(layout)},
                     {getVNew(), "v_new", {}, getU(), "u"}});
}

//===----------------------------------------------------------------------===//
// OutputOp
//===----------------------------------------------------------------------===//

LogicalResult OutputOp::verify() {
  Value q = getQ();
  StateLayout layout = getStateLayout();
  return verifyStage(getOperation(),
                     startChunkedChecks(getOperation(), getChunkSize(),
                                        std::nullopt,
                                        getScaleAttr().getValue()),
                     {{q, "q"},
                      {getG(), "G"},
                      {getAqk(), "Aqk", {}, q, "q"},
                      {getVNew(), "v_new"}},
                     getCuSeqlens(),
                     {{getH(), "h", getChunkStateDims(layout), q, "q",
                       stateLayoutNote(layout)},
                      {getO(), "o", {}, getVNew(), "v_new"}});
}

//===----------------------------------------------------------------------===//
// StateScanOutputOp
//===----------------------------------------------------------------------===//

LogicalResult StateScanOutputOp::verify() {
  Value kg = getKg();
  SmallVector<OperandRule> inputs = scanInputs(kg, getW(), getU(), getG());
  inputs.push_back({getQ(), "q", {}, kg, "kg"});
  inputs.push_back({getAqk(), "Aqk", {}, kg, "kg"});
  return verifyScan(getOperation(),
                    startChunkedChecks(getOperation(), getChunkSize(),
                                       std::nullopt, getScaleAttr().getValue()),
                    inputs, getCuSeqlens(), getStateLayout(), getInitialState(),
                    getFinalState(), {{getO(), "o", {}, getU(), "u"}});
}

//===----------------------------------------------------------------------===//
// DecayApplyOp
//===----------------------------------------------------------------------===//

LogicalResult DecayApplyOp::verify() {
  Value q = getQ();
  return verifyStage(getOperation(),
                     startChunkedChecks(getOperation(), getChunkSize(),
                                        std::nullopt,
                                        getScaleAttr().getValue()),
                     {{q, "q"}, {getK(), "k", {}, q, "q"}, {getG(), "G"}},
                     getCuSeqlens(),
                     {{getQg(), "qg", {}, q, "q"},
                      {getKd(), "kd", {}, q, "q"},
                      {getKg(), "kg", {}, q, "q"},
                      {getDecayLast(), "decay_last"}});
}

//===----------------------------------------------------------------------===//
// ChunkRecurrenceOp
//===----------------------------------------------------------------------===//

LogicalResult ChunkRecurrenceOp::verify() {
  Value kd = getKd();
  return verifyScan(getOperation(),
                    startChunkedChecks(getOperation(), getChunkSize()),
                    {{getQg(), "qg"},
                     {kd, "kd", {}, getQg(), "qg"},
                     {getKg(), "kg", {}, getQg(), "qg"},
                     {getV(), "v"},
                     {getBeta(), "beta"},
                     {getM(), "M", {}, getQg(), "qg"},
                     {getAqk(), "Aqk", {}, getQg(), "qg"}},
                    getCuSeqlens(), getStateLayout(), getInitialState(),
                    getFinalState(),
                    {{getDecayLast(), "decay_last"},
                     {getO(), "o", {}, getV(), "v"}});
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
  Value q = getQ();
  if (failed(checkStageInputs(op, shapes,
                              {{q, "q"},
                               {getK(), "k", {}, q, "q"},
                               {getG(), "g"},
                               {getBeta(), "beta"},
                               {getV(), "v"}},
                              getCuSeqlens())))
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
  ArrayRef<StringRef> stateDims = getStateDims(layout);
  return checkOperands(
      op, shapes,
      {{getInitialState(), "initial_state", stateDims, {}, {}, note},
       {getO(), "o", {}, q, "q"},
       {getFinalState(), "final_state", stateDims, {}, {}, note}});
}
