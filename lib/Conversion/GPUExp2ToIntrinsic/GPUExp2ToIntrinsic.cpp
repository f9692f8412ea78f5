//===- GPUExp2ToIntrinsic.cpp - f32 exp2 as the llvm.exp2 intrinsic -------===//
//
// The gate differences of the inter_solve kernel are exponentiated with
// exp2. The GPU-to-NVVM conversion would call libdevice's __nv_exp2f for
// them, which is itself one ex2.approx.f32; calling the NVVM intrinsic
// llvm.nvvm.ex2.approx gives the same instruction without making the kernel
// depend on libdevice. (llvm.intr.exp2 would not do: the GPU-to-NVVM
// conversion turns it back into the libdevice call.)
//
//===----------------------------------------------------------------------===//

#include "kda/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kda {
#define GEN_PASS_DEF_CONVERTGPUEXP2TOINTRINSICPASS
#include "Conversion/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;

namespace {

struct ConvertGPUExp2ToIntrinsicPass
    : kda::impl::ConvertGPUExp2ToIntrinsicPassBase<
          ConvertGPUExp2ToIntrinsicPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](math::Exp2Op exp2) {
      if (!exp2.getType().isF32())
        return;
      rewriter.setInsertionPoint(exp2);
      rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
          exp2, exp2.getType(), rewriter.getStringAttr("llvm.nvvm.ex2.approx"),
          ValueRange{exp2.getOperand()});
    });
  }
};

} // namespace
