//===- ChunkFwdToStages.cpp - kda.chunk_fwd as a chain of stage ops -------===//
//
// The whole forward is the composition of its stages (kda-algorithm.md,
// section 2): optional preprocessing (l2norm of q and k, sigmoid of beta),
// the gate cumsum, the diagonal blocks, the fused off-diagonal blocks and
// solve (the seed kernel), the WY recompute, the inter-chunk state scan and
// the output. This pass writes that chain on tensors; convert-kda-to-tile
// then lowers each stage to its kernels, with the intermediates as
// workspaces of the launch plan.
//
//===----------------------------------------------------------------------===//

#include "kda/Conversion/Passes.h"
#include "kda/Dialect/KDA/KDAOps.h"

#include "mlir/IR/Builders.h"

#include <cstdio>
#include <string>

namespace mlir::kda {
#define GEN_PASS_DEF_CONVERTCHUNKFWDTOSTAGESPASS
#include "Conversion/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;
using namespace mlir::kda;

namespace {

/// `shape` with element type `element`.
RankedTensorType tensorOf(ArrayRef<int64_t> shape, Type element) {
  return RankedTensorType::get(shape, element);
}

/// Shorthand for a float written with 9 significant digits.
std::string formatFloat(float value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

/// The specialization key of the forward: program, shapes and options.
DictionaryAttr programKey(ChunkFwdOp op, float scale) {
  Builder b(op.getContext());
  auto qType = cast<RankedTensorType>(op.getQ().getType());
  auto vType = cast<RankedTensorType>(op.getV().getType());
  SmallVector<NamedAttribute> entries;
  auto add = [&](StringRef key, const std::string &value) {
    entries.push_back(b.getNamedAttr(key, b.getStringAttr(value)));
  };
  add("program", "chunk_fwd");
  // Head counts are part of the key only when the bundle fixes them.
  if (!qType.isDynamicDim(2))
    add("H", std::to_string(qType.getDimSize(2)));
  if (!vType.isDynamicDim(2))
    add("HV", std::to_string(vType.getDimSize(2)));
  add("K", std::to_string(qType.getDimSize(3)));
  add("V", std::to_string(vType.getDimSize(3)));
  add("chunk", std::to_string(op.getChunkSize()));
  add("scale", formatFloat(scale));
  add("gate", stringifyGateMode(op.getGateMode()).str());
  if (auto lb = op.getLowerBound())
    add("lower_bound", formatFloat(lb->convertToFloat()));
  add("safe_gate", op.getSafeGate() ? "1" : "0");
  add("l2norm", op.getUseQkL2norm() ? "1" : "0");
  add("beta_sigmoid", op.getUseBetaSigmoid() ? "1" : "0");
  add("allow_neg_eigval", op.getAllowNegEigval() ? "1" : "0");
  add("precision", stringifySolvePrecision(op.getPrecision()).str());
  add("state_layout", stringifyStateLayout(op.getStateLayout()).str());
  add("initial_state", op.getInitialState() ? "1" : "0");
  add("final_state", op.getFinalState() ? "1" : "0");
  add("varlen", op.getCuSeqlens() ? "1" : "0");
  return b.getDictionaryAttr(entries);
}

/// Builds the stage chain of `op` before it and replaces its results.
void decompose(ChunkFwdOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  auto qType = cast<RankedTensorType>(op.getQ().getType());
  auto vType = cast<RankedTensorType>(op.getV().getType());
  auto betaType = cast<RankedTensorType>(op.getBeta().getType());
  const int64_t batch = qType.getDimSize(0), tokens = qType.getDimSize(1);
  const int64_t hv = vType.getDimSize(2), k = qType.getDimSize(3),
                v = vType.getDimSize(3);
  const int64_t bt = op.getChunkSize(), bc = op.getSubChunkSize();
  Type io = qType.getElementType(), f32 = b.getF32Type();
  const float scale = op.getEffectiveScale();
  FloatAttr scaleAttr = b.getF32FloatAttr(scale);
  IntegerAttr chunkAttr = op.getChunkSizeAttr();
  IntegerAttr subChunkAttr = op.getSubChunkSizeAttr();
  UnitAttr safeGate = op.getSafeGateAttr();
  Value cu = op.getCuSeqlens();
  auto layout = StateLayoutAttr::get(ctx, op.getStateLayout());

  // Stage P: preprocessing.
  Value q = op.getQ(), kIn = op.getK(), beta = op.getBeta();
  if (op.getUseQkL2norm()) {
    auto qNorm = L2NormOp::create(b, loc, qType, q);
    qNorm->setAttr(KDADialect::getInputNameAttrName(),
                  b.getStringAttr("q"));
    auto kNorm = L2NormOp::create(b, loc, qType, kIn);
    kNorm->setAttr(KDADialect::getInputNameAttrName(),
                  b.getStringAttr("k"));
    q = qNorm.getResult();
    kIn = kNorm.getResult();
  }
  if (op.getUseBetaSigmoid()) {
    auto activation = BetaActivationOp::create(
        b, loc, tensorOf(betaType.getShape(), f32), beta,
        op.getAllowNegEigval());
    activation->setAttr(KDADialect::getInputNameAttrName(),
                        b.getStringAttr("beta"));
    beta = activation.getResult();
  }

  // Stage 1: the gate.
  SmallVector<int64_t> bthk{batch, tokens, hv, k};
  Value G = GateCumsumOp::create(b, loc, tensorOf(bthk, f32), op.getG(),
                                 op.getALog(), op.getDtBias(), cu, chunkAttr,
                                 op.getGateModeAttr(), op.getLowerBoundAttr());

  // Stages 2 and 3: the diagonal blocks, then the seed kernel.
  auto aType = tensorOf({batch, tokens, hv, bt}, io);
  auto intra = IntraDiagOp::create(b, loc, aType,
                                   tensorOf({batch, tokens, hv, bc}, f32), q,
                                   kIn, G, beta, cu, scaleAttr, chunkAttr,
                                   subChunkAttr, safeGate);
  auto solve = InterSolveOp::create(
      b, loc, aType, aType, q, kIn, G, beta, intra.getAqk(), intra.getAkkd(),
      cu, scaleAttr, chunkAttr, subChunkAttr, safeGate, op.getPrecisionAttr());

  // Stage 4: the WY representation.
  auto kvType = tensorOf(bthk, io);
  auto uType = tensorOf({batch, tokens, hv, v}, vType.getElementType());
  auto wy = WYRecomputeOp::create(b, loc, kvType, uType, kvType, kIn,
                                  op.getV(), G, beta, solve.getM(), cu,
                                  chunkAttr);

  // Stage 5: the state scan. h is [B, NT, HV, K, V] (V, K with vk).
  bool vk = op.getStateLayout() == StateLayout::vk;
  int64_t numChunks = ShapedType::kDynamic;
  if (!cu && !ShapedType::isDynamic(tokens))
    numChunks = (tokens + bt - 1) / bt;
  auto hType = tensorOf({batch, numChunks, hv, vk ? v : k, vk ? k : v}, io);
  Type finalType = op.getFinalState() ? op.getFinalState().getType() : Type();
  auto scan = StateScanOp::create(b, loc, hType, uType, finalType,
                                  wy.getKg(), wy.getW(), wy.getU(), G,
                                  op.getInitialState(), cu, chunkAttr, layout);

  // Stage 6: the output.
  auto output = OutputOp::create(b, loc, op.getO().getType(), q, G,
                                 solve.getAqkOut(), scan.getH(),
                                 scan.getVNew(), cu, scaleAttr, chunkAttr,
                                 layout);

  op.getO().replaceAllUsesWith(output.getO());
  if (op.getFinalState())
    op.getFinalState().replaceAllUsesWith(scan.getFinalState());
  op->getParentOfType<func::FuncOp>()->setAttr(
      kda::KDADialect::getProgramKeyAttrName(), programKey(op, scale));
  op.erase();
}

struct ConvertChunkFwdToStagesPass
    : kda::impl::ConvertChunkFwdToStagesPassBase<ConvertChunkFwdToStagesPass> {
  using Base::Base;

  void runOnOperation() override {
    const int64_t size = chunkSize.getValue();
    if (size != 0 && size != 16 && size != 32 && size != 64) {
      getOperation().emitError()
          << "convert-chunk-fwd-to-stages: chunk-size must be 16, 32 or 64 "
             "(or 0 to keep each forward's own), got "
          << size;
      return signalPassFailure();
    }
    SmallVector<ChunkFwdOp> ops;
    getOperation().walk([&](ChunkFwdOp op) { ops.push_back(op); });
    for (ChunkFwdOp op : ops) {
      auto func = op->getParentOfType<func::FuncOp>();
      bool alone = true;
      func.walk([&](Operation *other) {
        if (other != op && isa<KDADialect>(other->getDialect()))
          alone = false;
      });
      if (!alone) {
        op.emitOpError("must be the only kda op of its function (its "
                       "stages form the function's launch plan)");
        return signalPassFailure();
      }
      if (size != 0)
        op.setChunkSize(static_cast<uint64_t>(size));
      decompose(op);
    }
  }
};

} // namespace
