//===- Harness.cpp - case recorder of kda-runtime-test --------------------===//

#include "Harness.h"

#include <cstdio>
#include <cstdlib>
#include <new>

namespace kda::rt::test {

namespace {
thread_local long allocations = 0;
} // namespace

long allocationCount() { return allocations; }

void Harness::record(const std::string &name, bool ok,
                     const std::string &detail) {
  ++numCases;
  if (!ok)
    ++numFailed;
  std::printf("[%s] %s%s%s\n", ok ? "ok" : "FAIL", name.c_str(),
              detail.empty() ? "" : ": ", detail.c_str());
  std::fflush(stdout);
}

void Harness::expectError(const std::string &name, const Status &s,
                          ErrorCode code, const std::string &needle) {
  if (s.isOk()) {
    record(name, false, "expected an error containing '" + needle +
                            "', got ok");
    return;
  }
  bool ok = s.code() == code && s.message().find(needle) != std::string::npos;
  record(name, ok,
         ok ? s.message()
            : std::string("expected [") + errorCodeName(code) + "] '" +
                  needle + "', got [" + errorCodeName(s.code()) + "] '" +
                  s.message() + "'");
}

void Harness::expectOk(const std::string &name, const Status &s) {
  record(name, s.isOk(), s.isOk() ? "" : s.message());
}

} // namespace kda::rt::test

// Counts allocations so tests can check that the launch path makes none.
void *operator new(std::size_t size) {
  ++kda::rt::test::allocations;
  if (void *p = std::malloc(size ? size : 1))
    return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
