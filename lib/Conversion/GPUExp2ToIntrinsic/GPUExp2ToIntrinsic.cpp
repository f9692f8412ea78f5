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
// The register mapping computes on one vector per thread; its exp2s become
// one intrinsic call per element, so that both mappings compute the same
// function (LLVM would otherwise lower them to ex2.approx.f32).
//
//===----------------------------------------------------------------------===//

#include "kda/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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
      Type type = exp2.getType();
      auto vector = dyn_cast<VectorType>(type);
      if (!type.isF32() && !(vector && vector.getRank() == 1 &&
                             !vector.isScalable() &&
                             vector.getElementType().isF32()))
        return;
      rewriter.setInsertionPoint(exp2);
      Location loc = exp2.getLoc();
      auto ex2 = [&](Value x) -> Value {
        return LLVM::CallIntrinsicOp::create(
                   rewriter, loc, rewriter.getF32Type(),
                   rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz"),
                   ValueRange{x})
            .getResult(0);
      };
      if (!vector) {
        rewriter.replaceOp(exp2, ex2(exp2.getOperand()));
        return;
      }
      // The register mapping's elementwise ops work on one vector per
      // thread: one instruction per element.
      Value result = exp2.getOperand();
      for (int64_t i = 0; i < vector.getDimSize(0); ++i) {
        Value element =
            vector::ExtractOp::create(rewriter, loc, exp2.getOperand(), i);
        result = vector::InsertOp::create(rewriter, loc, ex2(element), result, i);
      }
      rewriter.replaceOp(exp2, result);
    });
  }
};

} // namespace
