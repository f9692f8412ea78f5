//===- KDAVerifyUtils.h - shared shape checks for kda ops -------*- C++ -*-===//
//
// Helpers used by the verifiers of the kda ops. Each returns failure after
// emitting an op error that names the operand (or result, or attribute) and
// the rule it breaks.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_DIALECT_KDA_KDAVERIFYUTILS_H
#define KDA_DIALECT_KDA_KDAVERIFYUTILS_H

#include "kda/Dialect/KDA/KDADialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

namespace mlir::kda {

/// Formats a float attribute value for a message, the short way ("-5",
/// "0.125", "NaN").
std::string formatFloat(const llvm::APFloat &value);

/// Returns "result 'name'" if `value` is a result of `op`, and
/// "operand 'name'" otherwise.
std::string describeValue(Operation *op, Value value, StringRef name);

/// Checks that `value` is a ranked tensor of rank `rank`; `layout` describes
/// the expected dimensions (e.g. "[B, T, HV, K]").
LogicalResult verifyRank(Operation *op, Value value, StringRef name,
                         int64_t rank, StringRef layout);

/// Checks that dimension `dim` of `value` (named `dimName`) is static.
LogicalResult verifyStaticDim(Operation *op, Value value, StringRef name,
                              int64_t dim, StringRef dimName);

/// Checks that dimension `dim` of `value` equals `expected` when both are
/// static. `what` describes where `expected` comes from; `note` is appended
/// to the message.
LogicalResult verifyDimMatches(Operation *op, Value value, StringRef name,
                               int64_t dim, StringRef dimName,
                               int64_t expected, StringRef what,
                               StringRef note = {});

/// Checks that the element type of `value` is `expected`, the element type
/// of the value described by `what` (e.g. "operand 'q'").
LogicalResult verifyElementType(Operation *op, Value value, StringRef name,
                                Type expected, StringRef what);

/// Checks a `cu_seqlens` operand: rank 1, at least two offsets where static,
/// and batch size 1 where static.
LogicalResult verifySeqLens(Operation *op, Value cuSeqlens, int64_t batch);

/// Checks `chunk_size` is 32 or 64.
LogicalResult verifyChunkSize(Operation *op, int64_t chunkSize);

/// Checks `sub_chunk_size` is 16.
LogicalResult verifySubChunkSize(Operation *op, int64_t subChunkSize);

/// Checks that the float attribute `name` is finite and strictly positive.
LogicalResult verifyPositiveFinite(Operation *op, StringRef name,
                                   const llvm::APFloat &value);

/// Checks the gate configuration shared by `kda.gate_cumsum` and
/// `kda.chunk_fwd`: which of `a_log`, `dt_bias` and `lower_bound` each
/// `gate_mode` needs or allows, the sign of `lower_bound`, and the shapes
/// `a_log : [HV]` and `dt_bias : [HV, K] | [HV * K]` against the `HV` and
/// `K` of operand 'g' (both must be static).
LogicalResult verifyGateConfig(Operation *op, GateMode mode,
                               std::optional<llvm::APFloat> lowerBound,
                               Value aLog, Value dtBias, int64_t hv,
                               int64_t k);

/// The dimension symbols of the tensor named `name` that the stage ops
/// exchange (q, k: [B, T, H, K]; g, G, w, kg: [B, T, HV, K]; v, u, v_new,
/// o: [B, T, HV, V]; beta: [B, T, HV]; Aqk, Aqk_out, M: [B, T, HV, BT];
/// Akkd: [B, T, HV, BC]; a_log: [HV]; dt_bias: [HV, K]; cu_seqlens: [N1]),
/// or an empty list for another name: the table of kda/Reference/
/// StageTensors.h, the one declaration of those shapes. The op verifiers
/// check operands against it, the lowering to tile kernels writes it into
/// each bundle's manifest, and kda-run checks a bundle's arguments against
/// the same table.
ArrayRef<StringRef> getStageTensorDims(StringRef name);

/// The dimension symbols of h, the state entering each chunk:
/// [B, NT, HV, K, V], or [B, NT, HV, V, K] with state_layout vk.
ArrayRef<StringRef> getChunkStateDims(StateLayout layout);

/// The dimension symbols of the initial and final states: [N, HV, K, V],
/// or [N, HV, V, K] with state_layout vk.
ArrayRef<StringRef> getStateDims(StateLayout layout);

/// NC, the number of chunk programs of one batch entry (decay_last's
/// slots): ceil(tokens / chunkSize), or floor(tokens / chunkSize) +
/// sequences with cu_seqlens (`varlen`); kda/Reference/StageTensors.h's
/// numChunkPrograms.
int64_t getNumChunkPrograms(int64_t tokens, int64_t chunkSize, bool varlen,
                            int64_t sequences);

/// Matches the shapes of an op's operands and results against symbolic
/// layouts such as `[B, T, HV, K]`. The first value with a static size for a
/// symbol binds it; later values must agree. The specialized dimensions
/// (H, HV, K, V, BT, BC) must be static in every value that has them.
class ShapeChecker {
public:
  explicit ShapeChecker(Operation *op) : op(op) {}

  /// Binds `sym` to `size`; `what` says where it comes from, e.g.
  /// "attribute 'chunk_size'".
  void bind(StringRef sym, int64_t size, StringRef what);

  /// Checks that `value` has rank `layout.size()` and that each dimension
  /// agrees with the symbol at its position. An empty symbol matches any
  /// size. `note` is appended to dimension mismatch messages.
  LogicalResult check(Value value, StringRef name, ArrayRef<StringRef> layout,
                      StringRef note = {});

  /// Checks the bound head counts and feature sizes: H >= 1, HV >= 1,
  /// HV % H == 0, and 1 <= K, V <= 256.
  LogicalResult checkHeadsAndFeatures();

  /// Binds N, the number of sequences: the size of `cuSeqlens` minus one if
  /// given, and the batch size B otherwise. Call after B is bound.
  void bindNumSequences(Value cuSeqlens);

  /// Binds NT = ceil(T / BT) when T is static and the input is not varlen,
  /// and NC (chunk programs) = ceil(T / BT), or floor(T / BT) + N with a
  /// statically sized `cuSeqlens`, when T is static. Call after T and BT
  /// are bound.
  void bindNumChunks(Value cuSeqlens);

  /// The size bound to `sym`, or ShapedType::kDynamic.
  int64_t lookup(StringRef sym) const;

private:
  struct Binding {
    int64_t size;
    std::string what;  // e.g. "HV of operand 'g'"
    std::string owner; // e.g. "operand 'g'"
  };
  Operation *op;
  llvm::StringMap<Binding> bindings;
};

} // namespace mlir::kda

#endif // KDA_DIALECT_KDA_KDAVERIFYUTILS_H
