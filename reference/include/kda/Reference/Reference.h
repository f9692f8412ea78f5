//===- Reference.h - float64 reference of the KDA forward -------*- C++ -*-===//
//
// Umbrella header of the KDA float64 reference library (namespace kda::ref):
// the per-token recurrence (ground truth) and every stage of fla's chunked
// forward, on flat std::vector<double> tensors in fla's row-major layouts.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_REFERENCE_REFERENCE_H
#define KDA_REFERENCE_REFERENCE_H

#include "kda/Reference/Gate.h"
#include "kda/Reference/Intra.h"
#include "kda/Reference/Metric.h"
#include "kda/Reference/Output.h"
#include "kda/Reference/Pipeline.h"
#include "kda/Reference/Preprocess.h"
#include "kda/Reference/Problem.h"
#include "kda/Reference/Random.h"
#include "kda/Reference/Recurrence.h"
#include "kda/Reference/Recurrent.h"
#include "kda/Reference/Solve.h"
#include "kda/Reference/State.h"
#include "kda/Reference/WY.h"

#endif // KDA_REFERENCE_REFERENCE_H
