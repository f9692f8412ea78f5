//===- kda-opt.cpp - the kda pass driver ----------------------------------===//
//
// mlir-opt with the kda and tile dialects, the kda passes and the kda
// pipelines registered, and a kernel tuning target for tests
// (TestKernelTuning.cpp) beside the Hopper one.
//
//===----------------------------------------------------------------------===//

#include "TestKernelTuning.h"

#include "kda/InitAllKDA.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::kda::registerAllKDADialects(registry);
  mlir::kda::registerAllKDAPasses();
  mlir::kda::registerTestKernelTuning();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "kda optimizer and lowering driver\n", registry));
}
