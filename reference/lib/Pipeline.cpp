//===- Pipeline.cpp - the whole KDA chunked forward in float64 ------------===//

#include "kda/Reference/Pipeline.h"

#include "kda/Reference/Intra.h"
#include "kda/Reference/Output.h"
#include "kda/Reference/Solve.h"
#include "kda/Reference/State.h"
#include "kda/Reference/WY.h"

namespace kda::ref {

ChunkedForward chunkedForward(const Problem &p, const std::vector<double> &q,
                              const std::vector<double> &k,
                              const std::vector<double> &v,
                              const std::vector<double> &G,
                              const std::vector<double> &beta,
                              const std::vector<double> *initialState) {
  ChunkedForward f;
  f.G = G;
  f.Aqk = computeAqk(p, q, k, G);
  f.Akkd = computeAkkDiag(p, k, G, beta);
  f.Akk = computeAkk(p, k, G, beta);
  f.M = solveTril(p, f.Akk);
  f.w = computeW(p, k, G, beta, f.M);
  f.u = computeU(p, v, beta, f.M);
  f.kg = computeKg(p, k, G);
  ChunkStates s = chunkStates(p, f.w, f.u, f.kg, G, initialState);
  f.h = std::move(s.h);
  f.vNew = std::move(s.vNew);
  f.finalState = std::move(s.finalState);
  f.o = chunkOutput(p, q, G, f.Aqk, f.h, f.vNew);
  return f;
}

} // namespace kda::ref
