//===- IntraChunk.cpp - what intra_diag and inter_solve share -------------===//

#include "IntraChunk.h"

#include "StageInputs.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace kda::run {

bool IntraChunkRunner::bindInputs(const rt::Manifest &m, const char *program,
                                  const std::vector<StageArg> &stageRules,
                                  int chunkArg, std::string &error) {
  // Roles, ranks and dtypes: every input, at least one output.
  std::vector<StageArg> rules = {{"q", false, 4, "float"},
                                 {"k", false, 4, "q"},
                                 {"G", false, 4, "f32"},
                                 {"beta", false, 3, "float"}};
  rules.insert(rules.end(), stageRules.begin(), stageRules.end());
  if (!bindArguments(m, program, rules, arg, error))
    return false;
  const rt::ArgSpec &q = m.args[arg[Q]];
  io = q.dtype;
  if (!checkDtypeFlag(opt, io, "input dtype", "q", error))
    return false;

  // Sizes: B and T from the flags, H, HV, K and BT from the bundle, which
  // the flags must match.
  if (!bindBatchAndHeads(opt, m, q, m.args[arg[Gc]], error))
    return false;
  takeFlagSizes();
  if (!bindLastDim(m, "q", "K", K, error))
    return false;
  if (const std::string *chunk = m.key("chunk")) {
    if (!parseKeyInt(chunk, BT)) {
      error = "the bundle's key chunk=" + *chunk + " is not a number";
      return false;
    }
  } else if (has(chunkArg) && m.args[arg[chunkArg]].dims[3].isStatic()) {
    BT = m.args[arg[chunkArg]].dims[3].size;
  } else {
    error = "the bundle fixes no chunk size (neither a static last dimension "
            "of 'Aqk' nor a key chunk=...)";
    return false;
  }
  if (BT != 16 && BT != 32 && BT != 64) {
    error = "the bundle's chunk size " + std::to_string(BT) +
            " is not 16, 32 or 64";
    return false;
  }
  const std::string *scaleKey = m.key("scale");
  if (!scaleKey || !isNumber(*scaleKey)) {
    error = "the bundle has no key scale=<number>";
    return false;
  }
  scale = std::strtof(scaleKey->c_str(), nullptr);
  if (const std::string *s = m.key("safe_gate")) {
    if (*s != "0" && *s != "1") {
      error = "the bundle's key safe_gate=" + *s + " is not 0 or 1";
      return false;
    }
    safeGate = *s == "1";
  }
  return true;
}

bool IntraChunkRunner::sizeStage(const rt::Manifest &m, const char *program,
                                 std::string &error) {
  if (!checkCuSeqlens(opt, m, B, T, error) ||
      !sizeAll(m, {"B", "T", "H", "HV", "K", "BT", "BC"}, error) ||
      !checkShapes(m, program, /*vFirst=*/false, error))
    return false;
  pickPairs(HV);
  return true;
}

std::string IntraChunkRunner::describeStage(const rt::Manifest &m,
                                            const std::string &keys) const {
  char number[32];
  std::snprintf(number, sizeof number, "%.9g", scale);
  return sizesText() + " chunk=" + std::to_string(BT) + " scale=" + number +
         " safe_gate=" + (safeGate ? "1" : "0") + keys +
         " dtype=" + rt::dtypeName(io) +
         " beta=" + rt::dtypeName(m.args[arg[Beta]].dtype) + cuSeqlensText() +
         inputOptionsText(opt);
}

void IntraChunkRunner::makeInputs(Tensors &args) {
  // The generator's stream is that of fla's tests: q, k, g, the mask, beta;
  // each part is drawn in parallel pieces.
  drawChunkStageInputs(opt, safeGate, BT, HV, K, seqs, pairs.all, args[arg[Q]],
                       args[arg[Kk]], args[arg[Gc]], args[arg[Beta]]);
}

ref::Problem IntraChunkRunner::subProblem(int64_t len) const {
  ref::Problem p = pairProblem(len, K, 1, BT);
  p.scale = static_cast<double>(scale);
  return p;
}

IntraChunkRunner::PairInputs
IntraChunkRunner::gatherInputs(const Tensors &args, int64_t begin, int64_t len,
                               int64_t head) const {
  const int64_t qkHead = head / (HV / H);
  PairInputs in;
  in.q = gatherHead(args[arg[Q]], begin, len, qkHead, H, K);
  in.k = gatherHead(args[arg[Kk]], begin, len, qkHead, H, K);
  in.G = gatherHead(args[arg[Gc]], begin, len, head, HV, K);
  in.beta = gatherHead(args[arg[Beta]], begin, len, head, HV, 1);
  return in;
}

double IntraChunkRunner::ioThreshold(double computed) const {
  // Rounding the output to bf16 (8 significant bits) or f16 (11) gives rms
  // ratios of about 2^-9 / sqrt(3) = 1.1e-3 and 2^-12 / sqrt(3) = 1.4e-4
  // (measured 1.6e-3 / 1.8e-3 for bf16 and 2.1e-4 for f16 on Aqk and the
  // off-diagonal blocks of M); inputs are rounded too, but the reference is
  // computed from the rounded values, so they add nothing. The accepted
  // ratios are about 2.5x that: 4e-3 for bf16, 5e-4 for f16.
  double rounding = io == rt::DType::BF16  ? 4e-3
                    : io == rt::DType::F16 ? 5e-4
                                           : 0.0;
  return std::max(rounding, computed);
}

} // namespace kda::run
