//===- Check.h - argument checks of the reference library -------*- C++ -*-===//

#ifndef KDA_REFERENCE_LIB_CHECK_H
#define KDA_REFERENCE_LIB_CHECK_H

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kda::ref {

/// Throws std::invalid_argument unless `t` holds exactly `n` elements.
inline void checkSize(const std::vector<double> &t, int64_t n,
                      const char *name) {
  if (static_cast<int64_t>(t.size()) != n)
    throw std::invalid_argument(std::string("kda::ref: tensor ") + name +
                                " has " + std::to_string(t.size()) +
                                " elements, expected " + std::to_string(n));
}

} // namespace kda::ref

#endif // KDA_REFERENCE_LIB_CHECK_H
