//===- Tests.h - test groups of kda-reference-test --------------*- C++ -*-===//

#ifndef KDA_REFERENCE_TEST_TESTS_H
#define KDA_REFERENCE_TEST_TESTS_H

#include "Harness.h"

namespace kda::ref::test {

/// Gate activation and chunk-local cumsum against a naive sum.
void runGateTests(Harness &h);

} // namespace kda::ref::test

#endif // KDA_REFERENCE_TEST_TESTS_H
