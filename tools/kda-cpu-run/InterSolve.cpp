//===- InterSolve.cpp - kda-cpu-run for kda.inter_solve programs ----------===//
//
// Inputs made as fla's tests make them: q, k ~ randn, L2-normalized per
// row; g = logsigmoid(randn) / gate_norm, set to -1000 with probability
// --mask-p, clamped to [-5, 0] with safe_gate; G = the chunk cumsum of g;
// beta = sigmoid(randn); Akkd = the reference diagonal Akk blocks (their
// inverses with safe_gate); Aqk = the reference Aqk with its off-diagonal
// blocks zeroed, so that the kernel must write them. Every input is rounded
// to its dtype, and the reference is computed from the rounded values.
// Entries the kernel must not read (above the diagonal of the Akkd blocks
// without safe_gate, above the diagonal blocks of Aqk) hold NaN, like the
// garbage of fla's torch.empty buffers.
//
// Checked: Aqk_out on and below the diagonal of every chunk, and every
// column of every row of M = (I + Akk)^-1 (zeros above the diagonal
// included), against the float64 reference (solveTril of the full Akk).
//
//===----------------------------------------------------------------------===//

#include "CpuRun.h"

#include "kda/Reference/Gate.h"
#include "kda/Reference/Intra.h"
#include "kda/Reference/Preprocess.h"
#include "kda/Reference/Random.h"
#include "kda/Reference/Solve.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

using namespace mlir;
using namespace ::kda;

namespace {

/// The rms ratio accepted for an output in the I/O dtype `io` whose f32
/// computation alone is accurate to `computed`: the larger of the two.
///
/// Rounding the output to bf16 (8 significant bits) or f16 (11) gives rms
/// ratios of about 2^-9 / sqrt(3) = 1.1e-3 and 2^-12 / sqrt(3) = 1.4e-4
/// (measured 1.6e-3 / 1.8e-3 for bf16 and 2.1e-4 for f16 on Aqk and the
/// off-diagonal blocks of M); inputs are rounded too, but the reference is
/// computed from the rounded values, so they add nothing. The accepted
/// ratios are about 2.5x that: 4e-3 for bf16, 5e-4 for f16.
double threshold(ElementKind io, double computed) {
  double rounding = io == ElementKind::BF16  ? 4e-3
                    : io == ElementKind::F16 ? 5e-4
                                             : 0.0;
  return std::max(rounding, computed);
}

/// Rounds an f32 value to tf32 as the kernel's tf32 dots do (to nearest,
/// ties away from zero, like cvt.rna.tf32.f32).
float roundToTF32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits = (bits + 0x1000u) & 0xFFFFE000u;
  std::memcpy(&x, &bits, 4);
  return x;
}

/// The off-diagonal blocks (I > J) of Aqk and Akk as the kernel's tf32 dots
/// compute them: the kernel's f32 operands (q_I * 2^(G_I - gn_I),
/// k_I * 2^(G_I - gn_I) and k_J * 2^(gn_I - G_J), with f32 subtraction,
/// exp2 and product) rounded to tf32, their products summed in float64.
/// Overwrites those blocks of `aqk` and `akk` ([B, T, HV, BT]).
void modelOffDiagonalBlocks(const ref::Problem &p, const std::vector<double> &q,
                            const std::vector<double> &k,
                            const std::vector<double> &G,
                            const std::vector<double> &beta, float scale,
                            std::vector<double> &aqk,
                            std::vector<double> &akk) {
  const int64_t bc = ref::kSubChunk, bt = p.chunkSize, K = p.K;
  std::vector<float> qi(K), ki(K), kj;
  for (const ref::Chunk &c : p.chunks())
    for (int64_t nu = 0; nu < p.HV; ++nu) {
      const int64_t hq = p.qkHead(nu);
      auto gAt = [&](int64_t row, int64_t d) {
        return static_cast<float>(G[ref::at3(row, nu, d, p.HV, K)]);
      };
      auto kAt = [&](int64_t row, int64_t d) {
        return static_cast<float>(k[ref::at3(row, hq, d, p.H, K)]);
      };
      for (int64_t r0 = c.begin + bc; r0 < c.end; r0 += bc) {
        // k_J * 2^(gn - G_J) for every row j of the sub-chunks J < I.
        const int64_t rows = r0 - c.begin;
        kj.resize(rows * K);
        for (int64_t j = 0; j < rows; ++j)
          for (int64_t d = 0; d < K; ++d)
            kj[j * K + d] =
                roundToTF32(kAt(c.begin + j, d) *
                            std::exp2(gAt(r0, d) - gAt(c.begin + j, d)));
        for (int64_t i = r0; i < std::min(r0 + bc, c.end); ++i) {
          for (int64_t d = 0; d < K; ++d) {
            float e = std::exp2(gAt(i, d) - gAt(r0, d));
            qi[d] = roundToTF32(
                static_cast<float>(q[ref::at3(i, hq, d, p.H, K)]) * e);
            ki[d] = roundToTF32(kAt(i, d) * e);
          }
          for (int64_t j = 0; j < rows; ++j) {
            double sq = 0.0, sk = 0.0;
            for (int64_t d = 0; d < K; ++d) {
              sq += double(qi[d]) * kj[j * K + d];
              sk += double(ki[d]) * kj[j * K + d];
            }
            int64_t at = ref::at3(i, nu, j, p.HV, bt);
            aqk[at] = static_cast<double>(scale) * sq;
            akk[at] = beta[ref::at2(i, nu, p.HV)] * sk;
          }
        }
      }
    }
}

} // namespace

int ::kda::runInterSolve(ModuleOp module, func::FuncOp entry,
                         mlir::kda::InterSolveOp op,
                         const RunOptions &options) {
  // Problem sizes.
  ref::Problem problem;
  auto qType = cast<RankedTensorType>(op.getQ().getType());
  auto gType = cast<RankedTensorType>(op.getG().getType());
  if (int rc =
          setupTokens(options, qType, "q", bool(op.getCuSeqlens()), problem))
    return rc;
  problem.H = qType.getDimSize(2);
  problem.HV = gType.getDimSize(2);
  problem.K = problem.V = qType.getDimSize(3);
  problem.chunkSize = op.getChunkSize();
  const float scale = op.getScale().convertToFloat();
  problem.scale = static_cast<double>(scale);
  const bool safeGate = op.getSafeGate();
  const mlir::kda::SolvePrecision solvePrecision = op.getPrecision();
  const std::string precision =
      mlir::kda::stringifySolvePrecision(solvePrecision).str();
  const int64_t bt = problem.chunkSize, bc = ref::kSubChunk;
  if (int rc = checkProblem(
          problem, "B*T*HV*max(K,BT)",
          {problem.B, problem.T, problem.HV, std::max(problem.K, bt)}))
    return rc;

  ElementKind io, betaKind;
  if (!getElementKind(qType.getElementType(), io) ||
      !getElementKind(
          cast<RankedTensorType>(op.getBeta().getType()).getElementType(),
          betaKind))
    return fail("unsupported element type of 'q' or 'beta'");

  // Which argument of the function each operand is.
  enum Role {
    RoleQ,
    RoleK,
    RoleG,
    RoleBeta,
    RoleAqk,
    RoleAkkd,
    RoleCu,
    NumRoles
  };
  const char *roleNames[] = {"q",   "k",    "G",         "beta",
                             "Aqk", "Akkd", "cu_seqlens"};
  Value operands[] = {op.getQ(),   op.getK(),    op.getG(),        op.getBeta(),
                      op.getAqk(), op.getAkkd(), op.getCuSeqlens()};
  unsigned numArgs = entry.getNumArguments();
  std::vector<int> roleOfArg(numArgs, -1);
  for (int r = 0; r < NumRoles; ++r) {
    if (!operands[r])
      continue;
    int a = argumentIndex(entry, operands[r]);
    if (a < 0)
      return fail(Twine("operand '") + roleNames[r] +
                  "' of kda.inter_solve must be a function argument");
    if (roleOfArg[a] >= 0)
      return fail(Twine("operands '") + roleNames[roleOfArg[a]] + "' and '" +
                  roleNames[r] +
                  "' of kda.inter_solve must be distinct "
                  "function arguments");
    roleOfArg[a] = r;
  }
  for (unsigned a = 0; a < numArgs; ++a)
    if (roleOfArg[a] < 0)
      return fail("argument #" + Twine(a) +
                  " is not an operand of "
                  "kda.inter_solve");

  // Inputs, made like fla's tests, rounded to the program's dtypes.
  ref::Rng rng(options.seed);
  auto roundAll = [](std::vector<double> &x, ElementKind kind) {
    for (double &v : x)
      v = roundTo(kind, v);
  };
  std::vector<double> q =
      ref::l2normRows(ref::randomNormal(rng, problem.qkSize()), problem.K);
  std::vector<double> k =
      ref::l2normRows(ref::randomNormal(rng, problem.qkSize()), problem.K);
  roundAll(q, io);
  roundAll(k, io);
  std::vector<double> g =
      ref::randomLogsigmoidGate(rng, problem.gateSize(), options.gateNorm);
  ref::maskWithProbability(rng, g, options.maskP, -1000.0);
  if (safeGate)
    for (double &x : g)
      x = std::clamp(x, -5.0, 0.0);
  std::vector<double> G = ref::gateCumsum(problem, g);
  roundAll(G, ElementKind::F32);
  std::vector<double> beta = ref::randomSigmoidNormal(rng, problem.betaSize());
  roundAll(beta, betaKind);

  std::vector<double> akkd = ref::computeAkkDiag(problem, k, G, beta);
  if (safeGate)
    akkd = ref::invertDiagonalBlocks(problem, akkd);
  roundAll(akkd, ElementKind::F32);
  std::vector<double> aqkRef = ref::computeAqk(problem, q, k, G);
  std::vector<double> aqkIn(aqkRef.size());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<int64_t> lowerPart;   // compared entries of Aqk_out
  std::vector<int64_t> offDiagonal; // entries of the blocks I > J
  for (const ref::Chunk &c : problem.chunks())
    for (int64_t row = c.begin; row < c.end; ++row) {
      const int64_t i = row - c.begin;
      for (int64_t nu = 0; nu < problem.HV; ++nu) {
        for (int64_t j = 0; j < bt; ++j) {
          int64_t at = ref::at3(row, nu, j, problem.HV, bt);
          if (j > i)
            aqkIn[at] = nan; // unread: garbage
          else if (j / bc == i / bc)
            aqkIn[at] = roundTo(io, aqkRef[at]); // diagonal block
          else
            aqkIn[at] = 0.0; // computed by the kernel
          if (j <= i)
            lowerPart.push_back(at);
          if (j / bc < i / bc)
            offDiagonal.push_back(at);
        }
        if (!safeGate)
          for (int64_t j = i % bc + 1; j < bc; ++j)
            akkd[ref::at3(row, nu, j, problem.HV, bc)] = nan;
      }
    }
  std::vector<double> akkRef = ref::computeAkk(problem, k, G, beta);
  std::vector<double> mRef = ref::solveTril(problem, akkRef);
  // The same with the off-diagonal blocks as tf32 dots give them.
  std::vector<double> aqkModel = aqkRef, akkModel = akkRef;
  modelOffDiagonalBlocks(problem, q, k, G, beta, scale, aqkModel, akkModel);
  std::vector<double> mModel = ref::solveTril(problem, akkModel);

  // Host tensors: the function's arguments, then one output per result.
  const std::vector<int64_t> qkShape{problem.B, problem.T, problem.H,
                                     problem.K};
  const std::vector<int64_t> gShape{problem.B, problem.T, problem.HV,
                                    problem.K};
  const std::vector<int64_t> chunkShape{problem.B, problem.T, problem.HV, bt};
  std::vector<std::unique_ptr<HostTensor>> owned;
  auto make = [&](ElementKind kind, std::vector<int64_t> shape,
                  const std::vector<double> &values) {
    owned.push_back(std::make_unique<HostTensor>(kind, std::move(shape)));
    owned.back()->fill(values);
    return owned.back().get();
  };
  std::vector<HostTensor *> args(numArgs);
  for (unsigned a = 0; a < numArgs; ++a) {
    switch (roleOfArg[a]) {
    case RoleQ:
      args[a] = make(io, qkShape, q);
      break;
    case RoleK:
      args[a] = make(io, qkShape, k);
      break;
    case RoleG:
      args[a] = make(ElementKind::F32, gShape, G);
      break;
    case RoleBeta:
      args[a] = make(betaKind, {problem.B, problem.T, problem.HV}, beta);
      break;
    case RoleAqk:
      args[a] = make(io, chunkShape, aqkIn);
      break;
    case RoleAkkd:
      args[a] =
          make(ElementKind::F32, {problem.B, problem.T, problem.HV, bc}, akkd);
      break;
    case RoleCu:
      args[a] = make(ElementKind::I64,
                     {static_cast<int64_t>(problem.cuSeqlens.size())},
                     std::vector<double>(problem.cuSeqlens.begin(),
                                         problem.cuSeqlens.end()));
      break;
    }
  }
  // Outputs start as NaN, so that unwritten elements show.
  std::vector<double> unset(static_cast<size_t>(problem.chunkMatrixSize()),
                            nan);
  HostTensor *aqkOut = nullptr, *mOut = nullptr;
  auto ret = cast<func::ReturnOp>(entry.getBody().front().getTerminator());
  for (Value v : ret.getOperands()) {
    HostTensor *out = make(io, chunkShape, unset);
    args.push_back(out);
    (v == op.getAqkOut() ? aqkOut : mOut) = out;
  }

  // The op and the function are rewritten from here on.
  std::string name = entry.getName().str();
  if (int rc = compileAndRun(module, entry, options, args))
    return rc;

  std::printf("kda-cpu-run: %s (kda.inter_solve) B=%lld T=%lld H=%lld HV=%lld "
              "K=%lld chunk=%lld%s%s precision=%s io=%s seed=%llu\n",
              name.c_str(), (long long)problem.B, (long long)problem.T,
              (long long)problem.H, (long long)problem.HV, (long long)problem.K,
              (long long)bt,
              problem.isVarlen() ? (" cu_seqlens=" + options.cuSeqlens).c_str()
                                 : "",
              safeGate ? " safe_gate" : "", precision.c_str(),
              io == ElementKind::BF16  ? "bf16"
              : io == ElementKind::F16 ? "f16"
                                       : "f32",
              (unsigned long long)options.seed);

  // Accuracy of the f32 computation (f32 I/O; see threshold() for the
  // others), measured at B=2 T=300 H=2 HV=4 K=64 (rms ratios):
  //
  //                         ieee     tf32     tf32x3
  //   Aqk_out, exact ref    4.0e-5   4.0e-5   4.0e-5
  //   M, exact ref          3.3e-6   4.1e-6   3.3e-6
  //   Aqk_off*              1.3e-7   1.3e-7   1.3e-7
  //   M_off*                1.3e-7   2.4e-4   1.4e-7
  //
  // - Against the exact float64 reference, the error comes from the
  //   off-diagonal dots, which are tf32 at every `precision` (fla's default
  //   for fp32-operand dots): operands lose up to 2^-11 relative, 3.2e-4
  //   rms on the off-diagonal blocks alone, less on whole outputs, whose
  //   diagonal blocks are fp32-exact. Accepted: 1e-3.
  // - The starred rows compare the off-diagonal blocks with a reference
  //   whose off-diagonal dot operands are the kernel's f32 operands rounded
  //   to tf32 (modelOffDiagonalBlocks), so only fp32 accumulation (Aqk) and
  //   the merge (M) remain: fp32 sums give ~1e-7 (accepted: 1e-6 for Aqk);
  //   the merge at tf32 rounds the 16x16 operands like the off-diagonal
  //   dots (2.4e-4, accepted: 1e-3), at tf32x3 and ieee it is ~fp32
  //   (1.4e-7, accepted: 1e-5, which still tells them from tf32 by 20x).
  const double exactRef = 1e-3, accumulation = 1e-6;
  const double merge =
      solvePrecision == mlir::kda::SolvePrecision::tf32 ? 1e-3 : 1e-5;
  std::vector<OutputCheck> checks;
  std::vector<double> aqkValues, mValues;
  if (aqkOut) {
    aqkValues = aqkOut->read();
    if (options.injectError && !lowerPart.empty())
      aqkValues[lowerPart[lowerPart.size() / 2]] += 1.0;
    checks.push_back(compareOutput("Aqk_out", aqkValues, aqkRef, &lowerPart,
                                   threshold(io, exactRef)));
  }
  if (mOut) {
    mValues = mOut->read();
    if (options.injectError && !aqkOut && !mValues.empty())
      mValues[mValues.size() / 2] += 1.0;
    checks.push_back(
        compareOutput("M", mValues, mRef, nullptr, threshold(io, exactRef)));
  }
  if (aqkOut)
    checks.push_back(compareOutput("Aqk_off*", aqkValues, aqkModel,
                                   &offDiagonal, threshold(io, accumulation)));
  if (mOut)
    checks.push_back(compareOutput("M_off*", mValues, mModel, &offDiagonal,
                                   threshold(io, merge)));
  std::printf("(*: off-diagonal blocks only, against the reference with the "
              "off-diagonal dot operands rounded to tf32 like the kernel's)\n");
  return report(checks);
}
