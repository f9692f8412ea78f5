//===- Problem.cpp - KDA problem shape and token/chunk indexing -----------===//

#include "kda/Reference/Problem.h"
#include "kda/Reference/StageTensors.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace kda::ref {

const char *Problem::checkError() const {
  if (B < 1 || T < 0 || H < 1 || HV < 1 || K < 1 || V < 1)
    return "B, H, HV, K, V must be positive and T non-negative";
  if (HV % H != 0)
    return "HV must be a multiple of H";
  if (chunkSize != 64 && chunkSize != 32 && chunkSize != 16)
    return "chunk size must be 64, 32 or 16";
  if (isVarlen()) {
    if (B != 1)
      return "cu_seqlens requires B == 1";
    if (cuSeqlens.size() < 2)
      return "cu_seqlens needs at least two entries";
    if (cuSeqlens.front() != 0 || cuSeqlens.back() != T)
      return "cu_seqlens must start at 0 and end at T";
    for (size_t i = 1; i < cuSeqlens.size(); ++i)
      if (cuSeqlens[i] < cuSeqlens[i - 1])
        return "cu_seqlens must be non-decreasing";
  }
  return "";
}

void Problem::validate() const {
  const char *err = checkError();
  if (*err)
    throw std::invalid_argument(std::string("kda::ref::Problem: ") + err);
}

double Problem::effectiveScale() const {
  return scale ? *scale : 1.0 / std::sqrt(static_cast<double>(K));
}

int64_t Problem::numSequences() const {
  return isVarlen() ? static_cast<int64_t>(cuSeqlens.size()) - 1 : B;
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t Problem::chunksPerBatch() const {
  if (!isVarlen())
    return ceilDiv(T, chunkSize);
  return chunkOffsets().back();
}

int64_t Problem::chunkProgramsPerBatch() const {
  return numChunkPrograms(T, chunkSize, isVarlen(), numSequences());
}

std::vector<Sequence> Problem::sequences() const {
  std::vector<Sequence> seqs;
  if (isVarlen()) {
    for (size_t n = 0; n + 1 < cuSeqlens.size(); ++n)
      seqs.push_back({cuSeqlens[n], cuSeqlens[n + 1]});
  } else {
    for (int64_t b = 0; b < B; ++b)
      seqs.push_back({b * T, (b + 1) * T});
  }
  return seqs;
}

std::vector<int64_t> Problem::chunkOffsets() const {
  std::vector<int64_t> offsets{0};
  for (const Sequence &s : sequences())
    offsets.push_back(offsets.back() + ceilDiv(s.end - s.begin, chunkSize));
  return offsets;
}

std::vector<Chunk> Problem::chunks() const {
  std::vector<Chunk> result;
  std::vector<Sequence> seqs = sequences();
  // For fixed length every batch entry owns NT = ceil(T/BT) slots of h, which
  // equals the running count; for varlen the ids are chunk_offsets[n] + c.
  // Chunk program slots: b * NC + c for fixed length (NC = NT), and
  // floor(cu[n] / BT) + n + c for varlen (tile.varlen_chunk's numbering).
  int64_t id = 0;
  for (int64_t n = 0; n < static_cast<int64_t>(seqs.size()); ++n) {
    const int64_t first =
        isVarlen() ? seqs[n].begin / chunkSize + n : id;
    for (int64_t c = 0, r = seqs[n].begin; r < seqs[n].end;
         ++c, r += chunkSize)
      result.push_back({n, c, id++, first + c, r,
                        std::min(r + chunkSize, seqs[n].end)});
  }
  return result;
}

} // namespace kda::ref
