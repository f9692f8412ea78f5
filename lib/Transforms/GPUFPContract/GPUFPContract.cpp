//===- GPUFPContract.cpp - allow fused multiply-add in GPU kernels --------===//
//
// LLVM's NVPTX backend fuses a multiply and an add into one fma.rn.f32 only
// when both carry the `contract` fast-math flag; otherwise it prints them
// as mul.rn.f32 and add.rn.f32, whose explicit rounding also forbids ptxas
// from fusing them. The kernels' sums of products (the exact intra-chunk
// path's gated dot products, decays, the substitution's updates) would then
// take two instructions and two roundings per term where one FFMA does.
// This pass marks every floating-point add, subtract and multiply of a
// gpu.module as contractible; the arith-to-LLVM conversion keeps the flag.
//
//===----------------------------------------------------------------------===//

#include "kda/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::kda {
#define GEN_PASS_DEF_GPUFPCONTRACTPASS
#include "Transforms/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;

namespace {

/// Adds `contract` to the fast-math flags of `op`.
template <typename OpTy> void allowContraction(OpTy op) {
  op.setFastmath(op.getFastmath() | arith::FastMathFlags::contract);
}

struct GPUFPContractPass
    : kda::impl::GPUFPContractPassBase<GPUFPContractPass> {
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      if (auto add = dyn_cast<arith::AddFOp>(op))
        allowContraction(add);
      else if (auto sub = dyn_cast<arith::SubFOp>(op))
        allowContraction(sub);
      else if (auto mul = dyn_cast<arith::MulFOp>(op))
        allowContraction(mul);
    });
  }
};

} // namespace
