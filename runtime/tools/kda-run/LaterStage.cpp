//===- LaterStage.cpp - what wy_recompute and output share ----------------===//

#include "LaterStage.h"

#include <limits>

namespace kda::run {

bool LaterStageRunner::bindStage(const rt::Manifest &m, const char *program,
                                 const std::vector<StageArg> &rules,
                                 const char *kArg, const char *vArg,
                                 std::string &error) {
  if (!bindArguments(m, program, rules, arg, error))
    return false;
  const rt::ArgSpec &k = m.args[m.argIndex(kArg)];
  const rt::ArgSpec &v = m.args[m.argIndex(vArg)];
  if (!checkDtypeFlag(opt, k.dtype, "dtype", kArg, error))
    return false;
  if (!checkStaticDim(k, 0, opt.batch, "--batch", "static batch size", error) ||
      !checkStaticDim(k, 1, opt.seqLen, "--seq-len", "static token count",
                      error) ||
      !checkStaticDim(k, 2, opt.heads, "--heads", "H", error) ||
      !checkStaticDim(v, 2, opt.valueHeads, "--value-heads", "HV", error))
    return false;
  takeFlagSizes();
  if (!checkHeadGroups(H, HV, error) || !bindLastDim(m, kArg, "K", K, error) ||
      !bindLastDim(m, vArg, "V", V, error))
    return false;
  const std::string *chunk = m.key("chunk");
  if (!chunk || !parseKeyInt(chunk, BT) || (BT != 16 && BT != 32 && BT != 64)) {
    error = "the bundle has no key chunk=16, chunk=32 or chunk=64";
    return false;
  }
  if (!checkCuSeqlens(opt, m, B, T, error))
    return false;
  countChunks();
  return sizeAll(m, {"B", "T", "H", "HV", "K", "V", "BT", "N", "NT", "NC"},
                 error);
}

void LaterStageRunner::setProblem(double scale, ref::StateLayout layout) {
  problem = ref::Problem();
  problem.B = B;
  problem.T = T;
  problem.H = H;
  problem.HV = HV;
  problem.K = K;
  problem.V = V;
  problem.chunkSize = BT;
  problem.cuSeqlens = opt.cuSeqlens;
  problem.scale = scale;
  problem.stateLayout = layout;
  pickPairs(HV);
}

StageInputs LaterStageRunner::drawStageInputs(rt::DType qk, rt::DType v,
                                              rt::DType beta) const {
  return makeStageInputs(problem, opt, qk, v, beta);
}

void LaterStageRunner::storeLowerTriangles(HostTensor &t,
                                           const std::vector<double> &x) const {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const ref::Chunk &c : problem.chunks())
    for (int64_t i = c.begin; i < c.end; ++i)
      for (int64_t nu = 0; nu < HV; ++nu)
        for (int64_t j = 0; j < BT; ++j) {
          const int64_t at = (i * HV + nu) * BT + j;
          t.set(at, j <= i - c.begin ? x[at] : nan);
        }
}

OutputStats LaterStageRunner::compareRows(const char *name, double threshold,
                                          const HostTensor &out,
                                          const std::vector<double> &expected,
                                          int64_t width) const {
  // Per (row, head): whether a compared pair holds it.
  std::vector<char> compared(static_cast<size_t>(B * T * HV), 0);
  for (size_t i : pairs.checked) {
    const HeadPair &p = pairs.all[i];
    for (int64_t r = seqs[p.seq].begin; r < seqs[p.seq].end; ++r)
      compared[static_cast<size_t>(r * HV + p.head)] = 1;
  }
  OutputStats st;
  st.name = name;
  st.threshold = threshold;
  st.compared = !opt.noCheck;
  for (int64_t i = 0; i < out.size(); ++i)
    st.take(out.get(i), expected, i, st.compared && compared[i / width]);
  return st;
}

} // namespace kda::run
