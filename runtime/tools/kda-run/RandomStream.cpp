//===- RandomStream.cpp - one generator's stream, drawn in parallel -------===//

#include "RandomStream.h"

#include "HostTensor.h"
#include "Parallel.h"

#include "kda/Reference/Preprocess.h"
#include "kda/Reference/Random.h"

#include <algorithm>

namespace kda::run {

RandomSegment RandomStream::normals(int64_t n) {
  RandomSegment s;
  s.seed = seed;
  s.count = n;
  s.normals = true;
  if (n == 0)
    return s;
  s.startsWithSpare = spare;
  s.spareRaw = spareRaw;
  s.firstRaw = raw;
  // After the spare, the samples come in pairs of two raw values each; an
  // odd count leaves the second of the last pair pending.
  int64_t rest = n - (spare ? 1 : 0);
  raw += 2 * static_cast<uint64_t>((rest + 1) / 2);
  spare = rest % 2 != 0;
  if (spare)
    spareRaw = raw - 2;
  return s;
}

RandomSegment RandomStream::uniforms(int64_t n) {
  RandomSegment s;
  s.seed = seed;
  s.count = n;
  s.normals = false;
  s.firstRaw = raw;
  raw += static_cast<uint64_t>(n); // a pending spare stays pending
  return s;
}

void RandomSegment::drawRange(
    int64_t begin, int64_t end,
    const std::function<void(int64_t, double)> &put) const {
  if (begin >= end)
    return;
  ref::Rng rng(seed);
  if (!normals) {
    rng.discard(firstRaw + static_cast<uint64_t>(begin));
    for (int64_t i = begin; i < end; ++i)
      put(i, rng.uniform());
    return;
  }
  int64_t i = begin;
  if (startsWithSpare && i == 0) {
    ref::Rng pair(seed);
    pair.discard(spareRaw);
    pair.normal();
    put(i++, pair.normal());
  }
  // Sample i is number j of the pairs that start at raw value firstRaw.
  const int64_t j = i - (startsWithSpare ? 1 : 0);
  rng.discard(firstRaw + 2 * static_cast<uint64_t>(j / 2));
  if (j % 2)
    rng.normal(); // the first of the pair, drawn by the piece before
  for (; i < end; ++i)
    put(i, rng.normal());
}

void RandomSegment::draw(
    const std::function<void(int64_t, double)> &put) const {
  constexpr int64_t kPiece = int64_t(1) << 16;
  const int64_t pieces = (count + kPiece - 1) / kPiece;
  parallelFor(static_cast<size_t>(pieces), [&](size_t p) {
    int64_t begin = static_cast<int64_t>(p) * kPiece;
    drawRange(begin, std::min(count, begin + kPiece), put);
  });
}

void RandomSegment::drawInto(HostTensor &t) const {
  draw([&](int64_t i, double v) { t.set(i, v); });
}

void drawNormalizedRows(const RandomSegment &draws, int64_t width,
                        HostTensor &t) {
  constexpr int64_t kRowsPerPiece = 1024;
  const int64_t rows = t.size() / width;
  const size_t pieces =
      static_cast<size_t>((rows + kRowsPerPiece - 1) / kRowsPerPiece);
  parallelFor(pieces, [&](size_t piece) {
    const int64_t r0 = static_cast<int64_t>(piece) * kRowsPerPiece;
    const int64_t first = r0 * width,
                  last = std::min(rows, r0 + kRowsPerPiece) * width;
    std::vector<double> x(static_cast<size_t>(last - first));
    draws.drawRange(first, last,
                    [&](int64_t i, double v) { x[i - first] = v; });
    std::vector<double> normalized = ref::l2normRows(x, width);
    for (int64_t i = first; i < last; ++i)
      t.set(i, normalized[i - first]);
  });
}

} // namespace kda::run
