//===- InPlaceElementwise.cpp - elementwise results over dead inputs ------===//
//
// Elementwise tile math lowers to linalg.generic ops whose init is often a
// tensor.empty (the fused consumer's, or the one that a broadcast brought
// in). One-shot bufferization gives every such init a new buffer, in
// shared memory on the GPU, even where an input of the same shape dies at
// the op. Naming that input as the init lets the result take its buffer.
//
//===----------------------------------------------------------------------===//

#include "InPlaceElementwise.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

/// True if every use of `value` other than by `op` comes before `op` in
/// `op`'s block (uses in nested regions count at their ancestor there).
bool isLastReader(Value value, Operation *op) {
  Block *block = op->getBlock();
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (user == op)
      continue;
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (!ancestor || ancestor == op || !ancestor->isBeforeInBlock(op))
      return false;
  }
  return true;
}

/// True if `value` has a buffer of the kernel's own that bufferization may
/// overwrite: a loop-carried tile, or the result of a linalg op or of a
/// padded (masked) tile load. Tiles read straight from a kernel argument
/// (unpadded loads) are not: writing them would need a copy first.
bool isOwnTile(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return isa<scf::ForOp>(arg.getOwner()->getParentOp());
  Operation *def = value.getDefiningOp();
  return isa_and_nonnull<linalg::LinalgOp, tensor::PadOp, scf::ForOp>(def);
}

} // namespace

void mlir::kda::reuseDeadInputsAsInits(func::FuncOp kernel) {
  kernel.walk([](linalg::GenericOp generic) {
    if (!generic.hasPureTensorSemantics() || generic.getNumDpsInits() != 1 ||
        generic.getNumReductionLoops() != 0)
      return;
    OpOperand *init = generic.getDpsInitOperand(0);
    if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
        generic.payloadUsesValueFromOperand(init))
      return;
    AffineMap initMap = generic.getMatchingIndexingMap(init);
    for (OpOperand *input : generic.getDpsInputOperands()) {
      Value value = input->get();
      if (value.getType() != init->get().getType() ||
          generic.getMatchingIndexingMap(input) != initMap ||
          !isOwnTile(value) || !isLastReader(value, generic))
        continue;
      init->set(value);
      return;
    }
  });
}
