//===- TestKernelTuning.h - a kernel tuning target for tests ----*- C++ -*-===//

#ifndef KDA_TOOLS_KDAOPT_TESTKERNELTUNING_H
#define KDA_TOOLS_KDAOPT_TESTKERNELTUNING_H

namespace mlir::kda {

/// Registers the kernel tuning target "test-uniform" (32 threads and K
/// tiles of 16 for every kernel, shared memory unless asked otherwise).
void registerTestKernelTuning();

} // namespace mlir::kda

#endif // KDA_TOOLS_KDAOPT_TESTKERNELTUNING_H
