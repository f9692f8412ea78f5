//===- TileTuning.cpp - how a tile kernel runs on the GPU -----------------===//
//
// #tile.tuning: verification, and finding it on a kernel.
//
//===----------------------------------------------------------------------===//

#include "kda/Dialect/Tile/TileDialect.h"

#include "mlir/IR/Operation.h"

using namespace mlir;
using namespace mlir::kda::tile;

LogicalResult TuningAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t threads, int64_t maxRegisters,
                                 int64_t maxLiveBytes, int64_t blockK,
                                 int64_t blockV, bool speculateLoads, bool hoistAddresses,
                                 KernelMapping mapping, int64_t stages,
                                 bool transposeState) {
  if (threads < 1 || threads > kMaxThreads)
    return emitError() << "threads must be in [1, " << kMaxThreads
                       << "], got " << threads;
  if (maxRegisters < 0 || maxRegisters > kMaxRegisters)
    return emitError() << "max_registers must be in [0, " << kMaxRegisters
                       << "] (0 for no limit), got " << maxRegisters;
  if (maxLiveBytes < 0)
    return emitError() << "max_live_bytes must be at least 0 (0 for no "
                          "bound), got "
                       << maxLiveBytes;
  if (blockK < 0)
    return emitError() << "block_k must be at least 0 (0 for no K tiles), got "
                       << blockK;
  if (blockV < 0)
    return emitError() << "block_v must be at least 0 (0 when V is not "
                          "split), got "
                       << blockV;
  if (stages < 1 || stages > kMaxStages)
    return emitError() << "stages must be in [1, " << kMaxStages << "], got "
                       << stages;
  return success();
}

TuningAttr TuningAttr::lookup(Operation *op) {
  return op->getAttrOfType<TuningAttr>(TileDialect::getTuningAttrName());
}

void TuningAttr::attachTo(Operation *op) const {
  op->setAttr(TileDialect::getTuningAttrName(), *this);
}
