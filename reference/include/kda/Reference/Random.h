//===- Random.h - deterministic random inputs for KDA tests -----*- C++ -*-===//
//
// A seeded splitmix64 generator and helpers that draw inputs the way fla's
// KDA tests do. The streams are platform independent.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_RANDOM_H
#define KDA_REFERENCE_RANDOM_H

#include <cstdint>
#include <vector>

namespace kda::ref {

/// Deterministic splitmix64 random number generator.
class Rng {
public:
  /// Creates a generator whose stream is fully determined by `seed`.
  explicit Rng(uint64_t seed) : state(seed) {}
  /// Next raw 64-bit value.
  uint64_t next();
  /// Uniform double in [0, 1) with 53 random bits.
  double uniform();
  /// Standard normal sample (Box-Muller). Samples come in pairs: the first
  /// of a pair draws two raw values (two calls of next()), the second is the
  /// pair's spare and draws none.
  double normal();
  /// Skips `n` raw values at once: the generator continues as if next() had
  /// been called `n` times (splitmix64 advances its state by a constant per
  /// value); a pending spare normal is dropped. Lets a stream be generated
  /// in independent pieces.
  void discard(uint64_t n);

private:
  uint64_t state;
  double spare = 0.0;
  bool hasSpare = false;
};

/// n samples of U[0,1).
std::vector<double> randomUniform(Rng &rng, int64_t n);

/// n samples of N(0,1).
std::vector<double> randomNormal(Rng &rng, int64_t n);

/// n gates logsigmoid(randn) / norm, as in fla's test_chunk.
std::vector<double> randomLogsigmoidGate(Rng &rng, int64_t n, double norm);

/// Sets each element of x to `value` with probability p (fla's mask_p:
/// value 0 in test_chunk, -1000 in test_chunk_varlen).
void maskWithProbability(Rng &rng, std::vector<double> &x, double p,
                         double value);

/// n samples sigmoid(randn), fla's default beta.
std::vector<double> randomSigmoidNormal(Rng &rng, int64_t n);

} // namespace kda::ref

#endif // KDA_REFERENCE_RANDOM_H
