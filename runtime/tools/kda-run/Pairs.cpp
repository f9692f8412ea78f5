//===- Pairs.cpp - sequences and (sequence, head) pairs -------------------===//

#include "Pairs.h"

#include "kda/Reference/Random.h"

#include <algorithm>
#include <numeric>

namespace kda::run {

std::vector<Sequence> sequencesOf(int64_t B, int64_t T,
                                  const std::vector<int64_t> &cuSeqlens) {
  std::vector<Sequence> seqs;
  if (cuSeqlens.empty())
    for (int64_t b = 0; b < B; ++b)
      seqs.push_back({b * T, (b + 1) * T});
  else
    for (size_t n = 0; n + 1 < cuSeqlens.size(); ++n)
      seqs.push_back({cuSeqlens[n], cuSeqlens[n + 1]});
  return seqs;
}

PairSelection selectPairs(const std::vector<Sequence> &sequences, int64_t heads,
                          int64_t checkHeads, uint64_t seed) {
  PairSelection selection;
  for (size_t s = 0; s < sequences.size(); ++s)
    if (sequences[s].length() > 0)
      for (int64_t h = 0; h < heads; ++h)
        selection.all.push_back({s, h});
  const size_t total = selection.all.size();
  std::vector<size_t> &checked = selection.checked;
  checked.resize(total);
  std::iota(checked.begin(), checked.end(), size_t(0));
  if (checkHeads > 0 && static_cast<size_t>(checkHeads) < total) {
    // A partial Fisher-Yates shuffle: the first n entries are a uniform
    // sample, independent of the generator that makes the inputs.
    ref::Rng pick(seed ^ 0x9E3779B97F4A7C15ULL);
    const size_t n = static_cast<size_t>(checkHeads);
    for (size_t i = 0; i < n; ++i) {
      size_t j = i + static_cast<size_t>(pick.next() % (total - i));
      std::swap(checked[i], checked[j]);
    }
    checked.resize(n);
    std::sort(checked.begin(), checked.end());
  }
  return selection;
}

} // namespace kda::run
