//===- DropTileLayouts.cpp - remove #tile.dist from tile types -------------===//
//
// kda-drop-tile-layouts: the CPU path (and the shared-memory GPU mapping)
// has no threads to spread tiles over, so a register layout carries no
// meaning there. Types lose the encoding in place and conversions between
// layouts, now identities, go away.
//
//===----------------------------------------------------------------------===//

#include "kda/Transforms/Passes.h"
#include "kda/Dialect/Tile/TileOps.h"

namespace mlir::kda {
#define GEN_PASS_DEF_DROPTILELAYOUTSPASS
#include "Transforms/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;

namespace {

/// `type` without a #tile.dist encoding.
Type dropLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !isa_and_nonnull<kda::tile::DistLayoutAttr>(tensor.getEncoding()))
    return type;
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType());
}

SmallVector<Type> dropLayouts(TypeRange types) {
  return llvm::map_to_vector(types, dropLayout);
}

struct DropTileLayoutsPass
    : public kda::impl::DropTileLayoutsPassBase<DropTileLayoutsPass> {
  void runOnOperation() override {
    SmallVector<kda::tile::ConvertLayoutOp> conversions;
    getOperation().walk([&](Operation *op) {
      for (Value result : op->getResults())
        result.setType(dropLayout(result.getType()));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            arg.setType(dropLayout(arg.getType()));
      // Only builtin function types can carry tile tensors (an llvm.func's
      // type is an LLVM function type, which this must leave alone).
      if (auto func = dyn_cast<FunctionOpInterface>(op))
        if (isa<FunctionType>(func.getFunctionType()))
          func.setType(FunctionType::get(
              op->getContext(), dropLayouts(func.getArgumentTypes()),
              dropLayouts(func.getResultTypes())));
      // A constant's value has the type of its result.
      if (auto constant = dyn_cast<arith::ConstantOp>(op))
        if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
          if (dense.getType() != constant.getType())
            constant.setValueAttr(
                dense.reshape(cast<ShapedType>(constant.getType())));
      if (auto convert = dyn_cast<kda::tile::ConvertLayoutOp>(op))
        conversions.push_back(convert);
    });
    for (kda::tile::ConvertLayoutOp convert : conversions) {
      convert.getResult().replaceAllUsesWith(convert.getInput());
      convert.erase();
    }
  }
};

} // namespace
