//===- KDAOps.cpp - KDA problem-level ops ---------------------------------===//

#include "kda/Dialect/KDA/KDAOps.h"
#include "kda/Dialect/KDA/KDAVerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::kda;

#define GET_OP_CLASSES
#include "KDA/KDAOps.cpp.inc"

//===----------------------------------------------------------------------===//
// GateCumsumOp
//===----------------------------------------------------------------------===//

LogicalResult GateCumsumOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyRank(op, getG(), "g", 4, "[B, T, HV, K]")) ||
      failed(verifyStaticDim(op, getG(), "g", 2, "HV")) ||
      failed(verifyStaticDim(op, getG(), "g", 3, "K")))
    return failure();
  auto gType = cast<RankedTensorType>(getG().getType());
  int64_t hv = gType.getDimSize(2), k = gType.getDimSize(3);
  if (k < 1 || k > 256)
    return emitOpError() << "K = " << k << " is not supported (1 <= K <= 256)";

  auto resultType = cast<RankedTensorType>(getResult().getType());
  if (resultType.getRank() != 4 ||
      failed(verifyCompatibleShape(resultType.getShape(), gType.getShape())))
    return emitOpError() << "result must have the shape of operand 'g' "
                            "[B, T, HV, K], got "
                         << resultType;
  if (failed(verifyChunkSize(op, getChunkSize())) ||
      failed(verifySeqLens(op, getCuSeqlens(), gType.getDimSize(0))))
    return failure();

  GateMode mode = getGateMode();
  if (mode == GateMode::precomputed) {
    if (getALog())
      return emitOpError("operand 'a_log' is only allowed with an in-kernel "
                         "gate (gate_mode softplus or lower_bound)");
    if (getDtBias())
      return emitOpError("operand 'dt_bias' is only allowed with an "
                         "in-kernel gate (gate_mode softplus or lower_bound)");
  }
  if (mode == GateMode::softplus && !getALog())
    return emitOpError("gate_mode softplus requires operand 'a_log'");
  if (mode != GateMode::lower_bound && getLowerBound())
    return emitOpError("attribute 'lower_bound' requires gate_mode lower_bound");
  if (mode == GateMode::lower_bound) {
    if (!getLowerBound())
      return emitOpError("gate_mode lower_bound requires attribute "
                         "'lower_bound'");
    float lb = getLowerBound()->convertToFloat();
    if (!(lb < 0.0f))
      return emitOpError() << "attribute 'lower_bound' must be negative, got "
                           << lb;
  }
  if (Value aLog = getALog()) {
    if (failed(verifyRank(op, aLog, "a_log", 1, "[HV]")) ||
        failed(verifyDimMatches(op, aLog, "a_log", 0, "HV", hv,
                                "HV of operand 'g'")))
      return failure();
  }
  if (Value dtBias = getDtBias()) {
    auto type = cast<RankedTensorType>(dtBias.getType());
    if (type.getRank() == 2) {
      if (failed(verifyDimMatches(op, dtBias, "dt_bias", 0, "HV", hv,
                                  "HV of operand 'g'")) ||
          failed(verifyDimMatches(op, dtBias, "dt_bias", 1, "K", k,
                                  "K of operand 'g'")))
        return failure();
    } else if (type.getRank() == 1) {
      if (failed(verifyDimMatches(op, dtBias, "dt_bias", 0, "HV * K", hv * k,
                                  "HV * K of operand 'g'")))
        return failure();
    } else {
      return emitOpError() << "operand 'dt_bias' must have rank 2 [HV, K] or "
                              "rank 1 [HV * K], got rank "
                           << type.getRank();
    }
  }
  return success();
}
