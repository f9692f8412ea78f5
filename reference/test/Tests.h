//===- Tests.h - test groups of kda-reference-test --------------*- C++ -*-===//

#ifndef KDA_REFERENCE_TEST_TESTS_H
#define KDA_REFERENCE_TEST_TESTS_H

#include "Harness.h"

namespace kda::ref::test {

/// Gate activation and chunk-local cumsum against a naive sum.
void runGateTests(Harness &h);

/// Chunked stages against the per-token recurrence, the tril inverse and
/// the state-layout switch, on random inputs.
void runChunkTests(Harness &h);

/// Problem indexing, preprocessing, the error metric and the RNG.
void runMiscTests(Harness &h);

} // namespace kda::ref::test

#endif // KDA_REFERENCE_TEST_TESTS_H
