//===- Parallel.cpp - a parallel loop for the host-side checks ------------===//

#include "Parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace kda::run {

void parallelFor(size_t n, const std::function<void(size_t)> &body) {
  size_t threads = std::min<size_t>(
      n, std::max<unsigned>(1, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i)
      body(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr firstError;
  std::mutex errorMutex;
  auto worker = [&] {
    for (size_t i; !failed && (i = next++) < n;) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!firstError)
          firstError = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error &) {
      break; // fewer threads; the loop still covers every index
    }
  }
  worker();
  for (std::thread &t : pool)
    t.join();
  if (firstError)
    std::rethrow_exception(firstError);
}

} // namespace kda::run
