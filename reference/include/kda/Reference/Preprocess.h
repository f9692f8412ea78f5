//===- Preprocess.h - optional KDA input preprocessing ----------*- C++ -*-===//
//
// Stage P of the chunked forward: q/k l2 normalisation and beta sigmoid.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_PREPROCESS_H
#define KDA_REFERENCE_PREPROCESS_H

#include <cstdint>
#include <vector>

namespace kda::ref {

/// Epsilon inside the square root of the l2 norm.
constexpr double kL2NormEps = 1e-6;

/// Stage P1: every contiguous row of length D (the last dimension, e.g. K of
/// q/k [B,T,H,K]) divided by sqrt(sum_d x_d^2 + 1e-6).
std::vector<double> l2normRows(const std::vector<double> &x, int64_t D);

/// Stage P2: beta = s * sigmoid(raw) elementwise, with s = 2 when
/// allowNegEigval and 1 otherwise.
std::vector<double> betaSigmoid(const std::vector<double> &raw,
                                bool allowNegEigval = false);

} // namespace kda::ref

#endif // KDA_REFERENCE_PREPROCESS_H
