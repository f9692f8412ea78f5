//===- Random.cpp - deterministic random inputs for KDA tests -------------===//

#include "kda/Reference/Random.h"

#include "kda/Reference/Gate.h"

#include <cmath>

namespace kda::ref {

uint64_t Rng::next() {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void Rng::discard(uint64_t n) {
  state += n * 0x9E3779B97F4A7C15ULL;
  hasSpare = false;
}

double Rng::uniform() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

double Rng::normal() {
  if (hasSpare) {
    hasSpare = false;
    return spare;
  }
  const double twoPi = 6.283185307179586476925286766559;
  double u1 = 1.0 - uniform(); // (0, 1]
  double u2 = uniform();
  double r = std::sqrt(-2.0 * std::log(u1));
  spare = r * std::sin(twoPi * u2);
  hasSpare = true;
  return r * std::cos(twoPi * u2);
}

std::vector<double> randomUniform(Rng &rng, int64_t n) {
  std::vector<double> x(n);
  for (double &e : x)
    e = rng.uniform();
  return x;
}

std::vector<double> randomNormal(Rng &rng, int64_t n) {
  std::vector<double> x(n);
  for (double &e : x)
    e = rng.normal();
  return x;
}

std::vector<double> randomLogsigmoidGate(Rng &rng, int64_t n, double norm) {
  std::vector<double> x(n);
  for (double &e : x)
    e = std::log(sigmoid(rng.normal())) / norm;
  return x;
}

void maskWithProbability(Rng &rng, std::vector<double> &x, double p,
                         double value) {
  for (double &e : x)
    if (rng.uniform() < p)
      e = value;
}

std::vector<double> randomSigmoidNormal(Rng &rng, int64_t n) {
  std::vector<double> x(n);
  for (double &e : x)
    e = sigmoid(rng.normal());
  return x;
}

} // namespace kda::ref
