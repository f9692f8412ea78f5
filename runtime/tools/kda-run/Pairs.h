//===- Pairs.h - sequences and (sequence, head) pairs -------------*- C++
//-*-===//
//
// The runners check kda programs per (sequence, head) pair: the reference of
// one pair needs only that pair's rows, so --check-heads N can compare a few
// random pairs of a large problem.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUN_PAIRS_H
#define KDA_RUN_PAIRS_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kda::run {

/// The token rows [begin, end) of one sequence, counted in the flattened
/// [B * T] row order.
struct Sequence {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t length() const { return end - begin; }
};

/// The B sequences of T tokens, or, when `cuSeqlens` is not empty (B = 1),
/// the packed sequences it delimits (empty ones included).
std::vector<Sequence> sequencesOf(int64_t B, int64_t T,
                                  const std::vector<int64_t> &cuSeqlens);

/// One (sequence, head) pair: an index into the sequences and a head.
struct HeadPair {
  size_t seq = 0;
  int64_t head = 0;
};

/// Every (sequence, head) pair of the non-empty sequences, and the pairs to
/// compare with the reference.
struct PairSelection {
  /// Sequence-major, heads in order.
  std::vector<HeadPair> all;
  /// Indices into `all`, increasing.
  std::vector<size_t> checked;
  /// True when `checked` is a strict subset of `all` (--check-heads).
  bool sampled() const { return checked.size() < all.size(); }
};

/// The pairs of `sequences` x `heads`; all of them are checked unless
/// 0 < checkHeads < their number, in which case `checkHeads` of them are
/// picked at random with a generator seeded from `seed`.
PairSelection selectPairs(const std::vector<Sequence> &sequences, int64_t heads,
                          int64_t checkHeads, uint64_t seed);

} // namespace kda::run

#endif // KDA_RUN_PAIRS_H
