//===- StageTensors.h - the tensors the KDA stages exchange -----*- C++ -*-===//
//
// The name and dimension symbols of every tensor the KDA stage ops exchange,
// declared once: the op verifiers check operands against them (the KDA
// dialect's getStageTensorDims), the lowering to tile kernels writes them
// into each bundle's manifest, and kda-run checks a bundle's arguments
// against them; the chunk program count NC is defined here for all of them.
// Header-only and without dependencies, so that the compiler (built on MLIR),
// the runtime and its tools (built without) share it.
//
// Symbols: B batch, T tokens per sequence, H q/k heads, HV value heads, K
// and V head dimensions, BT chunk size, BC sub-chunk size, N sequences, N1
// = N + 1 (cu_seqlens), NT chunks along h's second dimension, NC chunk
// programs (ceil(T / BT), or floor(T / BT) + N with cu_seqlens: the slots
// of per-chunk tensors indexed like the per-chunk stages' programs).
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_STAGETENSORS_H
#define KDA_REFERENCE_STAGETENSORS_H

#include <cstdint>
#include <string_view>

namespace kda::ref {

/// A tensor the stages exchange: its name (in the op verifiers, the
/// manifests and kda-run) and its comma-separated dimension symbols.
struct StageTensor {
  std::string_view name;
  std::string_view dims;
};

/// Every stage tensor whose shape does not depend on the state layout.
inline constexpr StageTensor kStageTensors[] = {
    {"q", "B,T,H,K"},         {"k", "B,T,H,K"},
    {"g", "B,T,HV,K"},        {"G", "B,T,HV,K"},
    {"w", "B,T,HV,K"},        {"kg", "B,T,HV,K"},
    {"qg", "B,T,HV,K"},       {"kd", "B,T,HV,K"},
    {"v", "B,T,HV,V"},        {"u", "B,T,HV,V"},
    {"v_new", "B,T,HV,V"},    {"o", "B,T,HV,V"},
    {"beta", "B,T,HV"},       {"Aqk", "B,T,HV,BT"},
    {"Aqk_out", "B,T,HV,BT"}, {"M", "B,T,HV,BT"},
    {"Akkd", "B,T,HV,BC"},    {"decay_last", "B,NC,HV,K"},
    {"a_log", "HV"},
    {"dt_bias", "HV,K"},      {"cu_seqlens", "N1"},
};

/// The dimension symbols of stage tensor `name`, or an empty view for a
/// name that is not one (states: chunkStateDims, stateDims).
constexpr std::string_view stageTensorDims(std::string_view name) {
  for (const StageTensor &tensor : kStageTensors)
    if (tensor.name == name)
      return tensor.dims;
  return {};
}

/// NC, the number of chunk programs of one batch entry (the slots of
/// per-chunk tensors such as decay_last): ceil(tokens / chunk) for
/// sequences of fixed length, or floor(tokens / chunk) + sequences with
/// cu_seqlens (`varlen`), where each of the packed sequences may start a
/// program in the middle of a chunk (tile.varlen_chunk's numbering).
/// `chunk` > 0.
constexpr std::int64_t numChunkPrograms(std::int64_t tokens, std::int64_t chunk,
                                        bool varlen, std::int64_t sequences) {
  return varlen ? tokens / chunk + sequences : (tokens + chunk - 1) / chunk;
}

/// The dimension symbols of h, the state entering each chunk (V before K
/// with the vk state layout).
constexpr std::string_view chunkStateDims(bool vFirst) {
  return vFirst ? "B,NT,HV,V,K" : "B,NT,HV,K,V";
}

/// The dimension symbols of the initial and final states.
constexpr std::string_view stateDims(bool vFirst) {
  return vFirst ? "N,HV,V,K" : "N,HV,K,V";
}

} // namespace kda::ref

#endif // KDA_REFERENCE_STAGETENSORS_H
