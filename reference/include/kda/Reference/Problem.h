//===- Problem.h - KDA problem shape and token/chunk indexing ---*- C++ -*-===//
//
// The shape of one KDA forward call and helpers that enumerate its sequences
// and chunks. Every tensor of the reference is a flat std::vector<double> in
// fla's contiguous row-major layout; the token index used throughout is the
// flattened row `b*T + t` (with varlen, B == 1 so the row is the packed token).
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_PROBLEM_H
#define KDA_REFERENCE_PROBLEM_H

#include <cstdint>
#include <optional>
#include <vector>

namespace kda::ref {

/// Layout of recurrent states (initial state, per-chunk h, final state).
enum class StateLayout {
  /// [.., HV, K, V] (fla's default).
  KV,
  /// [.., HV, V, K] (fla's `state_v_first`).
  VK,
};

/// One sequence: flattened token rows [begin, end).
struct Sequence {
  /// First row of the sequence.
  int64_t begin = 0;
  /// One past the last row of the sequence.
  int64_t end = 0;
};

/// One chunk of one sequence: flattened token rows [begin, end).
struct Chunk {
  /// Index of the sequence holding this chunk.
  int64_t seq = 0;
  /// Index of the chunk within its sequence.
  int64_t local = 0;
  /// Global chunk index: the index of this chunk in the flattened leading
  /// dimensions [B, NT] of `h` (b*NT + c for fixed length, chunk_offsets[n]+c
  /// for varlen).
  int64_t id = 0;
  /// Chunk program slot: the index of this chunk in the flattened leading
  /// dimensions [B, NC] of per-chunk tensors indexed like the per-chunk
  /// stages' programs (decay_last): b*NC + c for fixed length,
  /// floor(cu_seqlens[n] / BT) + n + c for varlen.
  int64_t program = 0;
  /// First row of the chunk.
  int64_t begin = 0;
  /// One past the last valid row of the chunk (a tail chunk is shorter).
  int64_t end = 0;
  /// Number of valid rows.
  int64_t size() const { return end - begin; }
};

/// Shape and options of one KDA forward problem.
struct Problem {
  /// Batch size (1 with cu_seqlens).
  int64_t B = 1;
  /// Tokens per batch entry (packed total with cu_seqlens).
  int64_t T = 0;
  /// Number of q/k heads.
  int64_t H = 1;
  /// Number of value heads (a multiple of H).
  int64_t HV = 1;
  /// Key dimension.
  int64_t K = 0;
  /// Value dimension.
  int64_t V = 0;
  /// Chunk size BT (64, 32 or 16).
  int64_t chunkSize = 64;
  /// Optional sequence boundaries [N+1] (then B == 1); empty for fixed length.
  std::vector<int64_t> cuSeqlens;
  /// Attention scale; K^-0.5 when unset.
  std::optional<double> scale;
  /// Layout of initial/final states and of h.
  StateLayout stateLayout = StateLayout::KV;

  /// Returns an error message if the problem is malformed, else empty string.
  const char *checkError() const;
  /// Throws std::invalid_argument with checkError() if the problem is
  /// malformed.
  void validate() const;

  /// The scale actually applied (explicit scale or K^-0.5).
  double effectiveScale() const;
  /// True when cu_seqlens is given.
  bool isVarlen() const { return !cuSeqlens.empty(); }
  /// Number of sequences N (B, or len(cu_seqlens) - 1).
  int64_t numSequences() const;
  /// Total number of token rows (B*T).
  int64_t numRows() const { return B * T; }
  /// Value heads per q/k head (HV / H).
  int64_t groupSize() const { return HV / H; }
  /// q/k head read by value head `nu`.
  int64_t qkHead(int64_t nu) const { return nu / groupSize(); }
  /// Second dimension NT of `h` ([B, NT, HV, ...]): ceil(T/BT) for fixed
  /// length, the total number of chunks for varlen.
  int64_t chunksPerBatch() const;
  /// Total number of chunks (B * chunksPerBatch()).
  int64_t numChunks() const { return B * chunksPerBatch(); }
  /// Second dimension NC of per-chunk tensors indexed by chunk program
  /// (decay_last): ceil(T/BT) for fixed length, floor(T/BT) + N for varlen.
  int64_t chunkProgramsPerBatch() const;
  /// All sequences, in order.
  std::vector<Sequence> sequences() const;
  /// All chunks, sequence by sequence, in global chunk-id order.
  std::vector<Chunk> chunks() const;
  /// chunk_offsets: [N+1] prefix sums of per-sequence chunk counts.
  std::vector<int64_t> chunkOffsets() const;

  /// Elements of a [B,T,H,K] tensor (q, k).
  int64_t qkSize() const { return numRows() * H * K; }
  /// Elements of a [B,T,HV,K] tensor (g, G, w, kg).
  int64_t gateSize() const { return numRows() * HV * K; }
  /// Elements of a [B,T,HV,V] tensor (v, u, v_new, o).
  int64_t valueSize() const { return numRows() * HV * V; }
  /// Elements of a [B,T,HV] tensor (beta).
  int64_t betaSize() const { return numRows() * HV; }
  /// Elements of a [B,T,HV,BT] tensor (Aqk, Akk, M).
  int64_t chunkMatrixSize() const { return numRows() * HV * chunkSize; }
  /// Elements of a [N,HV,K,V] state tensor.
  int64_t stateSize() const { return numSequences() * HV * K * V; }
  /// Elements of the [B,NC,HV,K] tensor decay_last.
  int64_t lastDecaySize() const {
    return B * chunkProgramsPerBatch() * HV * K;
  }
  /// Elements of the [B,NT,HV,K,V] per-chunk state tensor h.
  int64_t chunkStateSize() const { return numChunks() * HV * K * V; }

  /// Offset of the K x V (or V x K) state matrix of (slot, nu), where slot is
  /// a sequence index (h0/ht) or a global chunk id (h).
  int64_t stateOffset(int64_t slot, int64_t nu) const {
    return (slot * HV + nu) * K * V;
  }
  /// Offset of element (kk, vv) inside one state matrix, honouring the layout.
  int64_t stateElem(int64_t kk, int64_t vv) const {
    return stateLayout == StateLayout::KV ? kk * V + vv : vv * K + kk;
  }
};

/// Index of element (row, head, d) of a [rows, heads, D] tensor.
inline int64_t at3(int64_t row, int64_t head, int64_t d, int64_t heads,
                   int64_t D) {
  return (row * heads + head) * D + d;
}

/// Index of element (row, head) of a [rows, heads] tensor.
inline int64_t at2(int64_t row, int64_t head, int64_t heads) {
  return row * heads + head;
}

/// Sub-chunk size BC of the diagonal blocks.
constexpr int64_t kSubChunk = 16;

} // namespace kda::ref

#endif // KDA_REFERENCE_PROBLEM_H
