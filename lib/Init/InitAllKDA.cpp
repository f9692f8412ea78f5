//===- InitAllKDA.cpp - register everything the kda tools need ------------===//

#include "kda/InitAllKDA.h"

#include "kda/Conversion/Passes.h"
#include "kda/Transforms/Passes.h"
#include "kda/Dialect/KDA/KDADialect.h"
#include "kda/Dialect/Tile/TileDialect.h"
#include "kda/Pipelines/Pipelines.h"
#include "kda/Target/KernelTuning.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::kda::registerAllKDADialects(DialectRegistry &registry) {
  registry.insert<kda::KDADialect, kda::tile::TileDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
}

void mlir::kda::registerAllKDAPasses() {
  registerAllPasses();
  registerKDAConversionPasses();
  registerKDATransformsPasses();
  registerKDAPipelines();
  // convert-kda-to-tile's default `tuning` target.
  registerHopperKernelTuning();
}
