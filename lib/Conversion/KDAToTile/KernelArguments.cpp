//===- KernelArguments.cpp - stage kernel arguments, declared once --------===//
//
// The kernel argument tables of the stages (see KernelArguments.h).
//
//===----------------------------------------------------------------------===//

#include "KernelArguments.h"

using namespace mlir;
using namespace mlir::kda;

KernelArguments::KernelArguments(StageContext &ctx, Operation *stage,
                                 ArrayRef<KernelArgument> table)
    : ctx(ctx), stage(stage) {
  for (const KernelArgument &entry : table) {
    tensors.push_back(entry.tensor);
    if (!entry.tensor) {
      indices.push_back(-1);
      continue;
    }
    ctx.describe(entry.tensor, entry.name,
                 entry.dims.empty() ? getStageTensorDims(entry.name)
                                    : entry.dims);
    indices.push_back(argumentBuffers.size());
    argumentBuffers.push_back(entry.tensor.getDefiningOp() == stage
                                  ? ctx.allocateResult(entry.tensor)
                                  : ctx.buffers.lookup(entry.tensor));
  }
}

Value KernelArguments::bufferOf(Value tensor) const {
  for (auto [entryTensor, index] : llvm::zip(tensors, indices))
    if (tensor && entryTensor == tensor)
      return argumentBuffers[index];
  return Value();
}

func::FuncOp KernelArguments::createKernel(const KernelTuning &tuning) const {
  return kda::createKernel(ctx.module, ctx.kernelPrefix, buffers().getTypes(),
                           tuning);
}

Value KernelArguments::argument(func::FuncOp kernel, unsigned entry) const {
  return indices[entry] < 0 ? Value() : kernel.getArgument(indices[entry]);
}

void KernelArguments::mapResults() const {
  for (auto [tensor, index] : llvm::zip(tensors, indices))
    if (tensor && tensor.getDefiningOp() == stage)
      ctx.buffers.map(tensor, argumentBuffers[index]);
}
