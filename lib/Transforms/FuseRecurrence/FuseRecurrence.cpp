//===- FuseRecurrence.cpp - the recurrent form of the forward's tail ------===//
//
// kda-fuse-recurrence: the WY recompute, the state scan and the output (or
// the scan with the output inside, kda.state_scan_output) become a
// token-parallel kda.decay_apply and one kda.chunk_recurrence, whose kernel
// applies the solve M to each chunk's values itself: w, u, the per-chunk
// states h and v_new are never written to memory, and the recurrence reads
// the gated query qg instead of computing it from q and G in every chunk.
//
//===----------------------------------------------------------------------===//

#include "kda/Transforms/Passes.h"
#include "kda/Dialect/KDA/KDAOps.h"
#include "kda/Dialect/KDA/KDAVerifyUtils.h"

#include "mlir/IR/Builders.h"

namespace mlir::kda {
#define GEN_PASS_DEF_FUSERECURRENCEPASS
#include "Transforms/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;
using namespace mlir::kda;

namespace {

/// A WY recompute whose w, u and kg feed only a scan whose output is
/// computed from it: the ops the recurrent form replaces.
struct RecurrentTail {
  WYRecomputeOp wy;
  /// The scan and the output, or the fused scan-and-output op (output
  /// null).
  Operation *scan;
  OutputOp output;
  /// What the scan and the output read and return.
  Value kg, w, u, G, q, aqk, h0, cu, o, ht;
  FloatAttr scale;
  IntegerAttr chunkSize;
  StateLayoutAttr layout;
};

/// True if every user of `value` is `user`.
bool onlyUsedBy(Value value, Operation *user) {
  return llvm::all_of(value.getUsers(),
                      [&](Operation *u) { return u == user; });
}

/// True if every user of `ht` (if any) comes after `op` in its block.
bool usersFollow(Value ht, Operation *op) {
  if (!ht)
    return true;
  return llvm::all_of(ht.getUsers(), [&](Operation *user) {
    return user->getBlock() == op->getBlock() && op->isBeforeInBlock(user);
  });
}

/// Completes `tail` from the WY recompute that defines its kg, w and u,
/// when the three come from one and are read by nothing but the scan.
bool takeWY(RecurrentTail &tail, Operation *scan) {
  auto wy = tail.w.getDefiningOp<WYRecomputeOp>();
  if (!wy || tail.u != wy.getU() || tail.kg != wy.getKg() ||
      tail.w != wy.getW() || !onlyUsedBy(wy.getW(), scan) ||
      !onlyUsedBy(wy.getU(), scan) || !onlyUsedBy(wy.getKg(), scan))
    return false;
  if (wy.getG() != tail.G || wy.getCuSeqlens() != tail.cu ||
      wy.getChunkSizeAttr() != tail.chunkSize)
    return false;
  // kda.decay_apply reads the output's q and the WY recompute's k as one
  // pair of [B, T, H, K] tensors.
  if (wy.getK().getType() != tail.q.getType())
    return false;
  tail.wy = wy;
  return true;
}

/// The tail that ends in `output`, a kda.output reading h and v_new of a
/// kda.state_scan, when it can be fused.
std::optional<RecurrentTail> matchTail(OutputOp output) {
  auto scan = output.getH().getDefiningOp<StateScanOp>();
  if (!scan || output.getVNew() != scan.getVNew() ||
      !onlyUsedBy(scan.getH(), output) || !onlyUsedBy(scan.getVNew(), output))
    return std::nullopt;
  if (output.getG() != scan.getG() ||
      output.getCuSeqlens() != scan.getCuSeqlens() ||
      output.getChunkSize() != scan.getChunkSize() ||
      output.getStateLayout() != scan.getStateLayout() ||
      !usersFollow(scan.getFinalState(), output))
    return std::nullopt;
  RecurrentTail tail{{},
                     scan,
                     output,
                     scan.getKg(),
                     scan.getW(),
                     scan.getU(),
                     scan.getG(),
                     output.getQ(),
                     output.getAqk(),
                     scan.getInitialState(),
                     scan.getCuSeqlens(),
                     output.getO(),
                     scan.getFinalState(),
                     output.getScaleAttr(),
                     scan.getChunkSizeAttr(),
                     scan.getStateLayoutAttr()};
  if (!takeWY(tail, scan))
    return std::nullopt;
  return tail;
}

/// The tail that ends in `fused`, a kda.state_scan_output, when it can be
/// fused.
std::optional<RecurrentTail> matchTail(StateScanOutputOp fused) {
  RecurrentTail tail{{},
                     fused,
                     {},
                     fused.getKg(),
                     fused.getW(),
                     fused.getU(),
                     fused.getG(),
                     fused.getQ(),
                     fused.getAqk(),
                     fused.getInitialState(),
                     fused.getCuSeqlens(),
                     fused.getO(),
                     fused.getFinalState(),
                     fused.getScaleAttr(),
                     fused.getChunkSizeAttr(),
                     fused.getStateLayoutAttr()};
  if (!takeWY(tail, fused))
    return std::nullopt;
  return tail;
}

/// The type of decay_apply's decay_last for the gate cumsum type `gate` ([B,
/// T, HV, K] f32): [B, NC, HV, K], NC (chunk programs) static when T and
/// the number of sequences are.
RankedTensorType lastGateType(RankedTensorType gate, Value cuSeqlens,
                              int64_t chunkSize) {
  SmallVector<int64_t> shape(gate.getShape());
  int64_t t = shape[1];
  shape[1] = ShapedType::kDynamic;
  if (!ShapedType::isDynamic(t)) {
    if (!cuSeqlens) {
      shape[1] = getNumChunkPrograms(t, chunkSize, /*varlen=*/false, 0);
    } else {
      auto cuType = cast<RankedTensorType>(cuSeqlens.getType());
      if (!cuType.isDynamicDim(0))
        shape[1] = getNumChunkPrograms(t, chunkSize, /*varlen=*/true,
                                         cuType.getDimSize(0) - 1);
    }
  }
  return RankedTensorType::get(shape, gate.getElementType());
}

/// Writes the recurrent form in place of `tail`, where its last op stood.
void fuse(RecurrentTail tail) {
  Operation *last = tail.output ? tail.output.getOperation() : tail.scan;
  OpBuilder b(last);
  Location loc = last->getLoc();
  WYRecomputeOp wy = tail.wy;
  // qg, kd and kg have the shape and element type of kg: [B, T, HV, K].
  Type keys = tail.kg.getType();
  Type decayLast =
      lastGateType(cast<RankedTensorType>(tail.G.getType()), tail.cu,
                   static_cast<int64_t>(tail.chunkSize.getInt()));
  auto decay = DecayApplyOp::create(b, loc, keys, keys, keys, decayLast,
                                    tail.q, wy.getK(), tail.G, tail.cu,
                                    tail.scale, tail.chunkSize);
  Type finalType = tail.ht ? tail.ht.getType() : Type();
  auto recurrence = ChunkRecurrenceOp::create(
      b, loc, tail.o.getType(), finalType, decay.getQg(), decay.getKd(),
      decay.getKg(), wy.getV(), wy.getBeta(), wy.getM(), tail.aqk,
      decay.getDecayLast(), tail.h0, tail.cu, tail.chunkSize, tail.layout);
  tail.o.replaceAllUsesWith(recurrence.getO());
  if (tail.ht)
    tail.ht.replaceAllUsesWith(recurrence.getFinalState());
  if (tail.output)
    tail.output.erase();
  tail.scan->erase();
  wy.erase();
}

struct FuseRecurrencePass
    : kda::impl::FuseRecurrencePassBase<FuseRecurrencePass> {
  void runOnOperation() override {
    SmallVector<RecurrentTail> tails;
    getOperation().walk([&](Operation *op) {
      std::optional<RecurrentTail> tail;
      if (auto output = dyn_cast<OutputOp>(op))
        tail = matchTail(output);
      else if (auto fused = dyn_cast<StateScanOutputOp>(op))
        tail = matchTail(fused);
      if (tail)
        tails.push_back(*tail);
    });
    for (RecurrentTail &tail : tails)
      fuse(tail);
  }
};

} // namespace
