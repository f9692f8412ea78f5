//===- StageChecks.h - direct checks of single chunked stages ---*- C++ -*-===//

#ifndef KDA_REFERENCE_TEST_STAGECHECKS_H
#define KDA_REFERENCE_TEST_STAGECHECKS_H

#include "kda/Reference/Pipeline.h"
#include "kda/Reference/Problem.h"

#include <vector>

namespace kda::ref::test {

/// Worst relative RMS error of Aqk, Akk and kg against a direct evaluation
/// from the natural-log gate gamma (decay exp(sum_{j<r<=i} gamma_r)), which
/// does not go through G.
double intraStageError(const Problem &p, const std::vector<double> &q,
                       const std::vector<double> &k,
                       const std::vector<double> &gamma,
                       const std::vector<double> &beta,
                       const ChunkedForward &f);

/// Relative RMS error of h against the per-token recurrence's state at each
/// chunk start (the final state of the recurrence run on the sequence's
/// prefix up to that chunk).
double chunkStateError(const Problem &p, const std::vector<double> &q,
                       const std::vector<double> &k,
                       const std::vector<double> &v,
                       const std::vector<double> &gamma,
                       const std::vector<double> &beta,
                       const std::vector<double> *h0,
                       const std::vector<double> &h);

} // namespace kda::ref::test

#endif // KDA_REFERENCE_TEST_STAGECHECKS_H
