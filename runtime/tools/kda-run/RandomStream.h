//===- RandomStream.h - one generator's stream, drawn in parallel -*- C++
//-*-===//
//
// fla's tests draw every input from one generator, in order: q, k, g, a
// mask, beta, ... For large problems (T=8192, HV=96: hundreds of millions
// of values) drawing them one after the other takes many seconds, so the
// stream is laid out first, in segments (so many normals, then so many
// uniforms, ...), and each segment is then drawn in independent pieces
// (ref::Rng::discard). The values are exactly those of one ref::Rng drawing
// the segments in order, spare normals carried across segments included.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUN_RANDOMSTREAM_H
#define KDA_RUN_RANDOMSTREAM_H

#include <cstdint>
#include <functional>

namespace kda::run {

class HostTensor;

/// `count` consecutive draws of the stream, all normals or all uniforms.
class RandomSegment {
public:
  int64_t size() const { return count; }
  /// Calls put(i, value) for every i in [0, size()), in parallel pieces;
  /// `put` must be safe to call concurrently for different i.
  void draw(const std::function<void(int64_t, double)> &put) const;
  /// Stores draw i as element i of `t`, for i in [0, size()), in parallel
  /// pieces.
  void drawInto(HostTensor &t) const;
  /// Calls put(i, value) for i in [begin, end), in order, on this thread.
  void drawRange(int64_t begin, int64_t end,
                 const std::function<void(int64_t, double)> &put) const;

private:
  friend class RandomStream;
  uint64_t seed = 0;
  int64_t count = 0;
  bool normals = true;
  /// Raw values drawn before the segment's first pair (or uniform).
  uint64_t firstRaw = 0;
  /// For normals: whether the first value is the spare of the pair that
  /// starts at raw value `spareRaw`.
  bool startsWithSpare = false;
  uint64_t spareRaw = 0;
};

/// The layout of a ref::Rng(seed) stream, segment by segment.
class RandomStream {
public:
  explicit RandomStream(uint64_t seed) : seed(seed) {}
  /// The next `n` normals (ref::Rng::normal).
  RandomSegment normals(int64_t n);
  /// The next `n` uniforms (ref::Rng::uniform).
  RandomSegment uniforms(int64_t n);

private:
  uint64_t seed;
  /// Raw values (calls of next()) drawn so far.
  uint64_t raw = 0;
  /// A spare normal is pending: the second of the pair at `spareRaw`.
  bool spare = false;
  uint64_t spareRaw = 0;
};

/// Fills `t`, rows of `width` elements, with the values of `draws`, each
/// row divided by its L2 norm (kda::ref::l2normRows), in parallel pieces.
void drawNormalizedRows(const RandomSegment &draws, int64_t width,
                        HostTensor &t);

} // namespace kda::run

#endif // KDA_RUN_RANDOMSTREAM_H
