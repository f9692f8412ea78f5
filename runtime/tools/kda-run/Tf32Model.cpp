//===- Tf32Model.cpp - the inter_solve kernel's tf32 dot operands ---------===//

#include "Tf32Model.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace kda::run {

float roundToTF32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits = (bits + 0x1000u) & 0xFFFFE000u;
  std::memcpy(&x, &bits, 4);
  return x;
}

void modelOffDiagonalBlocks(const ref::Problem &p, const std::vector<double> &q,
                            const std::vector<double> &k,
                            const std::vector<double> &G,
                            const std::vector<double> &beta, float scale,
                            std::vector<double> &aqk,
                            std::vector<double> &akk) {
  const int64_t bc = ref::kSubChunk, bt = p.chunkSize, K = p.K;
  std::vector<float> qi(K), ki(K), kj;
  for (const ref::Chunk &c : p.chunks())
    for (int64_t nu = 0; nu < p.HV; ++nu) {
      const int64_t hq = p.qkHead(nu);
      auto gAt = [&](int64_t row, int64_t d) {
        return static_cast<float>(G[ref::at3(row, nu, d, p.HV, K)]);
      };
      auto kAt = [&](int64_t row, int64_t d) {
        return static_cast<float>(k[ref::at3(row, hq, d, p.H, K)]);
      };
      for (int64_t r0 = c.begin + bc; r0 < c.end; r0 += bc) {
        // k_J * 2^(gn - G_J) for every row j of the sub-chunks J < I.
        const int64_t rows = r0 - c.begin;
        kj.resize(rows * K);
        for (int64_t j = 0; j < rows; ++j)
          for (int64_t d = 0; d < K; ++d)
            kj[j * K + d] =
                roundToTF32(kAt(c.begin + j, d) *
                            std::exp2(gAt(r0, d) - gAt(c.begin + j, d)));
        for (int64_t i = r0; i < std::min(r0 + bc, c.end); ++i) {
          for (int64_t d = 0; d < K; ++d) {
            float e = std::exp2(gAt(i, d) - gAt(r0, d));
            qi[d] = roundToTF32(
                static_cast<float>(q[ref::at3(i, hq, d, p.H, K)]) * e);
            ki[d] = roundToTF32(kAt(i, d) * e);
          }
          for (int64_t j = 0; j < rows; ++j) {
            double sq = 0.0, sk = 0.0;
            for (int64_t d = 0; d < K; ++d) {
              sq += double(qi[d]) * kj[j * K + d];
              sk += double(ki[d]) * kj[j * K + d];
            }
            int64_t at = ref::at3(i, nu, j, p.HV, bt);
            aqk[at] = static_cast<double>(scale) * sq;
            akk[at] = beta[ref::at2(i, nu, p.HV)] * sk;
          }
        }
      }
    }
}

} // namespace kda::run
