//===- FuseScanOutput.cpp - the state scan with the output inside ---------===//
//
// kda-fuse-scan-output: a kda.output that reads h and v_new of a
// kda.state_scan, and is their only reader, becomes part of the scan: one
// kda.state_scan_output whose kernel computes each chunk's output from the
// state it holds on chip, so that the per-chunk states h (K * V values per
// chunk and value head) and v_new are never written to memory.
//
//===----------------------------------------------------------------------===//

#include "kda/Transforms/Passes.h"
#include "kda/Dialect/KDA/KDAOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::kda {
#define GEN_PASS_DEF_FUSESCANOUTPUTPASS
#include "Transforms/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;
using namespace mlir::kda;

namespace {

/// The scan whose h and v_new `output` reads, when the pair can be fused.
StateScanOp getFusableScan(OutputOp output) {
  auto scan = output.getH().getDefiningOp<StateScanOp>();
  if (!scan || output.getVNew() != scan.getVNew() ||
      !scan.getH().hasOneUse() || !scan.getVNew().hasOneUse())
    return {};
  if (output.getG() != scan.getG() ||
      output.getCuSeqlens() != scan.getCuSeqlens() ||
      output.getChunkSize() != scan.getChunkSize() ||
      output.getStateLayout() != scan.getStateLayout())
    return {};
  // The fused op stands where the output stood: every user of the scan's
  // final state must come after it.
  if (Value ht = scan.getFinalState())
    for (Operation *user : ht.getUsers())
      if (user->getBlock() != output->getBlock() ||
          user->isBeforeInBlock(output))
        return {};
  return scan;
}

void fuse(OutputOp output, StateScanOp scan) {
  OpBuilder b(output);
  Type finalType =
      scan.getFinalState() ? scan.getFinalState().getType() : Type();
  auto fused = StateScanOutputOp::create(
      b, output.getLoc(), output.getO().getType(), finalType, scan.getKg(),
      scan.getW(), scan.getU(), scan.getG(), output.getQ(), output.getAqk(),
      scan.getInitialState(), scan.getCuSeqlens(), output.getScaleAttr(),
      scan.getChunkSizeAttr(), scan.getStateLayoutAttr());
  output.getO().replaceAllUsesWith(fused.getO());
  if (Value ht = scan.getFinalState())
    ht.replaceAllUsesWith(fused.getFinalState());
  output.erase();
  scan.erase();
}

struct FuseScanOutputPass
    : kda::impl::FuseScanOutputPassBase<FuseScanOutputPass> {
  void runOnOperation() override {
    SmallVector<OutputOp> outputs;
    getOperation().walk([&](OutputOp op) { outputs.push_back(op); });
    for (OutputOp output : outputs)
      if (StateScanOp scan = getFusableScan(output))
        fuse(output, scan);
  }
};

} // namespace
