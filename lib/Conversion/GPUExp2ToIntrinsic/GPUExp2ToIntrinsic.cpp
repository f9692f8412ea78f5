//===- GPUExp2ToIntrinsic.cpp - f32 exp2 as ex2.approx.ftz.f32 ------------===//
//
// The gate differences of the kernels are exponentiated with exp2. The
// GPU-to-NVVM conversion would call libdevice's __nv_exp2f for them, which
// is itself one ex2.approx.f32; calling the NVVM intrinsic
// llvm.nvvm.ex2.approx.ftz gives the flush-to-zero form without making the
// kernel depend on libdevice. (llvm.intr.exp2 would not do: the GPU-to-NVVM
// conversion turns it back into the libdevice call.) The ftz form is one
// MUFU.EX2 in SASS; ex2.approx.f32 without ftz adds a compare and two
// predicated multiplies around it to produce subnormal results (below
// 2^-126, which then read as 0: nothing the gated sums can tell apart).
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
          exp2, exp2.getType(), rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz"),
          ValueRange{exp2.getOperand()});
    });
  }
};

} // namespace
