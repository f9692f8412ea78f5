//===- TileToCPU.cpp ---------------------------------------------------===//

#include "kda/Conversion/Passes.h"

namespace mlir::kda {
#define GEN_PASS_DEF_CONVERTTILETOCPUPASS
#include "Conversion/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;

namespace {
struct Impl : public kda::impl::ConvertTileToCPUPassBase<Impl> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
