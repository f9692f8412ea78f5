//===- KernelArguments.h - stage kernel arguments ---------------*- C++ -*-===//
//
// The arguments of a stage's tile kernel, declared once per stage as a
// table of (tensor, manifest name) entries. From that table a stage lowering
// describes its tensors in the bundle manifest, takes their buffers (an
// operand's buffer, a result's allocation), creates its kernel, binds the
// kernel's arguments and maps its results to their buffers. The dimension
// symbols the manifest gives a tensor are those the op verifiers check,
// declared once per tensor name in the KDA dialect (getStageTensorDims).
//
//===----------------------------------------------------------------------===//

#ifndef KDA_LIB_CONVERSION_KDATOTILE_KERNELARGUMENTS_H
#define KDA_LIB_CONVERSION_KDATOTILE_KERNELARGUMENTS_H

#include "StageLowering.h"

#include "kda/Dialect/KDA/KDAVerifyUtils.h"

namespace mlir::kda {

/// One entry of a stage's kernel argument table.
struct KernelArgument {
  /// The tensor of the kda function; null for an optional operand the stage
  /// does not have (no kernel argument).
  Value tensor;
  /// Its name in the manifest.
  StringRef name;
  /// Its dimension symbols; empty for those of `name`
  /// (getStageTensorDims, the declaration the op verifiers check).
  ArrayRef<StringRef> dims = {};
};

/// The kernel arguments of a stage, in the order of its table.
class KernelArguments {
public:
  /// Declares the kernel arguments `table` of the stage op `stage`: each
  /// present tensor is described in the manifest and takes its buffer, an
  /// allocation for a result of `stage` and the operand's buffer otherwise.
  KernelArguments(StageContext &ctx, Operation *stage,
                  ArrayRef<KernelArgument> table);

  /// The buffers, in kernel argument order (the operands of the launch).
  ValueRange buffers() const { return argumentBuffers; }
  /// The buffer of `tensor`; null for a null tensor.
  Value bufferOf(Value tensor) const;

  /// Creates the stage's kernel (see kda::createKernel) taking these
  /// arguments.
  func::FuncOp createKernel(const KernelTuning &tuning) const;
  /// The argument of `kernel` that table entry `entry` became; null when
  /// the entry's tensor is absent.
  Value argument(func::FuncOp kernel, unsigned entry) const;
  /// Sets `fields`, in order, to the arguments of `kernel` that the leading
  /// table entries became (null for an absent tensor).
  template <typename... Fields>
  void bind(func::FuncOp kernel, Fields &...fields) const {
    unsigned entry = 0;
    ((fields = argument(kernel, entry++)), ...);
  }

  /// Maps each result of the stage to its buffer (the stage's last step).
  void mapResults() const;

private:
  StageContext &ctx;
  Operation *stage;
  /// The tensor of each table entry.
  SmallVector<Value> tensors;
  /// The kernel argument index of each table entry; -1 when absent.
  SmallVector<int> indices;
  SmallVector<Value> argumentBuffers;
};

} // namespace mlir::kda

#endif // KDA_LIB_CONVERSION_KDATOTILE_KERNELARGUMENTS_H
