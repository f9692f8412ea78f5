//===- Parallel.h - a parallel loop for the host-side checks -----*- C++
//-*-===//
//
// The reference and the derived inputs are computed per (sequence, head)
// pair, independently: kda-run spreads the pairs over the host's cores.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUN_PARALLEL_H
#define KDA_RUN_PARALLEL_H

#include <cstddef>
#include <functional>

namespace kda::run {

/// Calls body(i) for every i in [0, n), on up to as many threads as the host
/// has cores, handing out indices one at a time (items may differ in cost).
/// Returns when every call has returned; rethrows the first exception a call
/// threw (the remaining indices are then skipped). `body` must be safe to
/// call concurrently for different indices.
void parallelFor(size_t n, const std::function<void(size_t)> &body);

} // namespace kda::run

#endif // KDA_RUN_PARALLEL_H
