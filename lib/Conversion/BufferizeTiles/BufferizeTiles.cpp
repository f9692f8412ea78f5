//===- BufferizeTiles.cpp ---------------------------------------------------===//

#include "kda/Conversion/Passes.h"

namespace mlir::kda {
#define GEN_PASS_DEF_KDABUFFERIZETILESPASS
#include "Conversion/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;

namespace {
struct Impl : public kda::impl::KDABufferizeTilesPassBase<Impl> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
