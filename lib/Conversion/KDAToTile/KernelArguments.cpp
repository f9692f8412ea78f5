//===- KernelArguments.cpp - stage kernel arguments, declared once --------===//
//
// The manifest's dimension symbols per tensor name, and the kernel argument
// tables of the stages (see KernelArguments.h).
//
//===----------------------------------------------------------------------===//

#include "KernelArguments.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::kda;

ArrayRef<StringRef> kda::manifestDims(StringRef name) {
  static constexpr StringRef headK[] = {"B", "T", "HV", "K"};
  static constexpr StringRef headV[] = {"B", "T", "HV", "V"};
  static constexpr StringRef headChunk[] = {"B", "T", "HV", "BT"};
  static constexpr StringRef headSubChunk[] = {"B", "T", "HV", "BC"};
  static constexpr StringRef headBias[] = {"HV", "K"};
  static constexpr StringRef heads[] = {"HV"};
  static constexpr StringRef sequenceStarts[] = {"N1"};
  ArrayRef<StringRef> dims = llvm::StringSwitch<ArrayRef<StringRef>>(name)
                                 .Cases({"q", "k"}, kQKDims)
                                 .Cases({"g", "G", "w", "kg"}, headK)
                                 .Cases({"v", "u", "v_new", "o"}, headV)
                                 .Case("beta", kHeadDims)
                                 .Cases({"Aqk", "Aqk_out", "M"}, headChunk)
                                 .Case("Akkd", headSubChunk)
                                 .Case("a_log", heads)
                                 .Case("dt_bias", headBias)
                                 .Case("cu_seqlens", sequenceStarts)
                                 .Default({});
  assert(!dims.empty() && "no manifest dimension symbols for this name");
  return dims;
}

ArrayRef<StringRef> kda::chunkStateDims(StateLayout layout) {
  static constexpr StringRef kv[] = {"B", "NT", "HV", "K", "V"};
  static constexpr StringRef vk[] = {"B", "NT", "HV", "V", "K"};
  return layout == StateLayout::vk ? ArrayRef(vk) : ArrayRef(kv);
}

ArrayRef<StringRef> kda::stateDims(StateLayout layout) {
  static constexpr StringRef kv[] = {"N", "HV", "K", "V"};
  static constexpr StringRef vk[] = {"N", "HV", "V", "K"};
  return layout == StateLayout::vk ? ArrayRef(vk) : ArrayRef(kv);
}

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
                 entry.dims.empty() ? manifestDims(entry.name) : entry.dims);
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
