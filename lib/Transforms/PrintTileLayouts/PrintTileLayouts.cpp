//===- PrintTileLayouts.cpp - print the thread map of #tile.dist tiles ----===//
//
// A read-only pass: for every tile value with a #tile.dist layout, a remark
// listing the coordinates each lane of warp 0 holds, register by register,
// and the offset each warp adds.
//
//===----------------------------------------------------------------------===//

#include "kda/Transforms/Passes.h"
#include "kda/Dialect/Tile/TileDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::kda {
#define GEN_PASS_DEF_PRINTTILELAYOUTSPASS
#include "Transforms/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;
using mlir::kda::tile::DistLayoutAttr;

namespace {

void printCoordinates(llvm::raw_ostream &os, ArrayRef<int64_t> c) {
  os << '(';
  llvm::interleaveComma(c, os);
  os << ')';
}

/// The remark text for a tile of `type` laid out as `layout`.
std::string describe(RankedTensorType type, DistLayoutAttr layout) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "tile layout of " << type << ": " << layout.getNumRegisters()
     << " registers per thread, " << layout.getMinWarps() << " warp(s)";
  for (int64_t lane = 0; lane < DistLayoutAttr::kWarpSize; ++lane) {
    os << "\n  lane " << lane << ':';
    for (int64_t reg = 0; reg < layout.getNumRegisters(); ++reg) {
      os << ' ';
      printCoordinates(os, layout.getCoordinates(0, lane, reg));
    }
  }
  os << "\n  warp offsets:";
  for (int64_t warp = 0; warp < layout.getMinWarps(); ++warp) {
    os << ' ' << warp << ": ";
    printCoordinates(os, layout.getWarpOffsets(warp));
  }
  return text;
}

struct PrintTileLayoutsPass
    : kda::impl::PrintTileLayoutsPassBase<PrintTileLayoutsPass> {
  void runOnOperation() override {
    auto report = [](Value value, Location loc) {
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type)
        return;
      if (auto layout = dyn_cast_or_null<DistLayoutAttr>(type.getEncoding()))
        emitRemark(loc) << describe(type, layout);
    };
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            report(arg, arg.getLoc());
      for (Value result : op->getResults())
        report(result, op->getLoc());
    });
  }
};

} // namespace
