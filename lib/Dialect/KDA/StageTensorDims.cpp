//===- StageTensorDims.cpp - the stage tensor table for the dialect -------===//
//
// getStageTensorDims, getChunkStateDims and getStateDims: the table of
// kda/Reference/StageTensors.h (shared with kda-run, which has no MLIR) as
// lists of StringRef for the op verifiers and the manifests;
// getNumChunkPrograms, its chunk program count.
//
//===----------------------------------------------------------------------===//

#include "kda/Dialect/KDA/KDAVerifyUtils.h"
#include "kda/Reference/StageTensors.h"

#include "llvm/ADT/StringMap.h"

namespace {

using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;

/// `dims` ("B,T,HV,K") split at its commas.
SmallVector<StringRef> splitDims(std::string_view dims) {
  SmallVector<StringRef> symbols;
  StringRef(dims.data(), dims.size()).split(symbols, ',');
  return symbols;
}

} // namespace

ArrayRef<StringRef> mlir::kda::getStageTensorDims(StringRef name) {
  static const llvm::StringMap<SmallVector<StringRef>> table = [] {
    llvm::StringMap<SmallVector<StringRef>> byName;
    for (const ::kda::ref::StageTensor &tensor : ::kda::ref::kStageTensors)
      byName[StringRef(tensor.name.data(), tensor.name.size())] =
          splitDims(tensor.dims);
    return byName;
  }();
  auto it = table.find(name);
  return it == table.end() ? ArrayRef<StringRef>() : ArrayRef(it->second);
}

ArrayRef<StringRef> mlir::kda::getChunkStateDims(StateLayout layout) {
  static const SmallVector<StringRef> kv =
      splitDims(::kda::ref::chunkStateDims(false));
  static const SmallVector<StringRef> vk =
      splitDims(::kda::ref::chunkStateDims(true));
  return layout == StateLayout::vk ? vk : kv;
}

int64_t mlir::kda::getNumChunkPrograms(int64_t tokens, int64_t chunkSize,
                                       bool varlen, int64_t sequences) {
  return ::kda::ref::numChunkPrograms(tokens, chunkSize, varlen, sequences);
}

ArrayRef<StringRef> mlir::kda::getStateDims(StateLayout layout) {
  static const SmallVector<StringRef> kv =
      splitDims(::kda::ref::stateDims(false));
  static const SmallVector<StringRef> vk =
      splitDims(::kda::ref::stateDims(true));
  return layout == StateLayout::vk ? vk : kv;
}
