//===- Tests.h - test groups of kda-runtime-test -----------------*- C++ -*-===//

#ifndef KDA_RUNTIME_TEST_TESTS_H
#define KDA_RUNTIME_TEST_TESTS_H

#include "Harness.h"

#include <string>

namespace kda::rt::test {

void runExprTests(Harness &h);
void runBundleTests(Harness &h);
void runValidateTests(Harness &h);
void runDriverTests(Harness &h);
void runCpuTests(Harness &h);
void runCApiTests(Harness &h);
void runForwardTests(Harness &h);
/// Tests on a real GPU with the bundle at `path` (its inputs are filled with
/// small random values).
void runGpuTests(Harness &h, const std::string &path);

} // namespace kda::rt::test

#endif // KDA_RUNTIME_TEST_TESTS_H
