//===- Preprocess.cpp - optional KDA input preprocessing ------------------===//

#include "kda/Reference/Preprocess.h"

#include "kda/Reference/Gate.h"

#include <cmath>
#include <stdexcept>

namespace kda::ref {

std::vector<double> l2normRows(const std::vector<double> &x, int64_t D) {
  if (D < 1 || x.size() % D != 0)
    throw std::invalid_argument("kda::ref::l2normRows: size not a multiple "
                                "of the row length");
  std::vector<double> y(x.size());
  for (size_t r = 0; r < x.size(); r += D) {
    double s = 0.0;
    for (int64_t d = 0; d < D; ++d)
      s += x[r + d] * x[r + d];
    double inv = 1.0 / std::sqrt(s + kL2NormEps);
    for (int64_t d = 0; d < D; ++d)
      y[r + d] = x[r + d] * inv;
  }
  return y;
}

std::vector<double> betaSigmoid(const std::vector<double> &raw,
                                bool allowNegEigval) {
  double s = allowNegEigval ? 2.0 : 1.0;
  std::vector<double> beta(raw.size());
  for (size_t i = 0; i < raw.size(); ++i)
    beta[i] = s * sigmoid(raw[i]);
  return beta;
}

} // namespace kda::ref
