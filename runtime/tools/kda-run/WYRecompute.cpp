//===- WYRecompute.cpp - kda-run for program=wy_recompute -----------------===//
//
// Arguments k [B,T,H,K] (the I/O dtype), v [B,T,HV,V], G [B,T,HV,K] f32,
// beta [B,T,HV], M [B,T,HV,BT] (k's dtype), optional cu_seqlens; outputs
// w, kg [B,T,HV,K] (k's dtype) and u [B,T,HV,V] (v's dtype), any of them
// may be absent.
//
// Inputs are those of the chunked forward on random q, k, v, g, beta drawn
// like fla's tests (StageInputs.h), rounded to the bundle's dtypes; M is the
// reference's (I + Akk)^-1 of those inputs rounded to k's dtype. Entries of
// M the kernel must ignore hold NaN: those above the diagonal and those in
// columns past the sequence end of a tail chunk. The reference is
// ref::computeW / computeU / computeKg of the stored (rounded) inputs;
// every element of every output is scanned for NaN/Inf and compared, or,
// with --check-heads N, those of N random (sequence, head) pairs.
//
//===----------------------------------------------------------------------===//

#include "LaterStage.h"

#include "kda/Reference/Reference.h"

namespace kda::run {

namespace {

/// The arguments of a kda.wy_recompute bundle.
enum Arg { Kk, Vv, Gc, Beta, Mm, W, U, Kg };

const std::vector<StageArg> kArgs = {
    {"k", false, 4, "float"}, {"v", false, 4, "float"},
    {"G", false, 4, "f32"},   {"beta", false, 3, "float"},
    {"M", false, 4, "k"},     {"w", true, 4, "k"},
    {"u", true, 4, "v"},      {"kg", true, 4, "k"}};

/// The rms ratio accepted for an output of dtype `dtype`.
///
/// The kernel rounds beta * k * 2^G and beta * v to the I/O dtype before
/// the dots (fla's rounding points), which the float64 reference does not,
/// and rounds its outputs; each rounding to bf16 (8 significant bits) gives
/// an rms ratio of about 2^-9 / sqrt(3) = 1.1e-3 (f16, 11 bits: 1.4e-4),
/// and the dots add some cancellation (M has negative entries). Measured on
/// the CPU build, bf16, K = V = 100, T = 65 and 300, seeds 0-3: w 1.8-1.9e-3,
/// u 2.3e-3, kg 0.7-0.9e-3 (rounding of the output only); f16, K = 64,
/// V = 96, T = 200: w 2.4e-4, u 2.9e-4, kg 1.0e-4. Accepted: 4e-3 for bf16
/// (as for inter_solve) and 5e-4 for f16, about 1.7x the worst measured.
/// With f32 I/O the dots run at tf32 (operands rounded to 11 significant
/// bits, about 1.4e-4 rms per operand, as fla's default fp32 tl.dot);
/// measured 2.0-2.1e-4 on w and u (varlen T=2000 and 300, K=60, V=128)
/// and 1-2e-8 on kg, which has no dot. Accepted: 1e-3 with a dot, 1e-6
/// for kg.
double threshold(rt::DType dtype, bool hasDot) {
  if (dtype == rt::DType::BF16)
    return 4e-3;
  if (dtype == rt::DType::F16)
    return 5e-4;
  return hasDot ? 1e-3 : 1e-6;
}

/// kda.wy_recompute: fla's recompute_w_u_fwd_kda_kernel.
class WYRecomputeRunner : public LaterStageRunner {
  bool setUp(const rt::Manifest &m, std::string &error) override;
  void makeInputs(Tensors &args) override;
  void compareOutputs(const Tensors &args, Table &outputs) override;
};

bool WYRecomputeRunner::setUp(const rt::Manifest &m, std::string &error) {
  if (!bindStage(m, "wy_recompute", kArgs, "k", "v", error) ||
      !checkShapes(m, "wy_recompute", /*vFirst=*/false, error))
    return false;
  setProblem(1.0, ref::StateLayout::KV);
  // An element the check compares, in the first output present.
  for (Arg a : {W, U, Kg})
    if (has(a)) {
      injectAtMiddleRow(arg[a], a == U ? V : K);
      break;
    }
  description = sizesText() + " V=" + std::to_string(V) +
                " chunk=" + std::to_string(BT) +
                " dtype=" + rt::dtypeName(m.args[arg[Kk]].dtype) +
                " v=" + rt::dtypeName(m.args[arg[Vv]].dtype) + cuSeqlensText() +
                " seed=" + std::to_string(opt.seed);
  return true;
}

void WYRecomputeRunner::makeInputs(Tensors &args) {
  StageInputs in = drawStageInputs(args[arg[Kk]].dtype(), args[arg[Vv]].dtype(),
                                   args[arg[Beta]].dtype());
  args[arg[Kk]].setAll(in.k);
  args[arg[Vv]].setAll(in.v);
  args[arg[Gc]].setAll(in.G);
  args[arg[Beta]].setAll(in.beta);
  // M, NaN where the kernel must not read: above the diagonal, which
  // includes the columns past the sequence end of a tail chunk.
  storeLowerTriangles(args[arg[Mm]], in.forward.M);
}

void WYRecomputeRunner::compareOutputs(const Tensors &args, Table &outputs) {
  const bool compare = !opt.noCheck;
  std::vector<double> k = args[arg[Kk]].getAll(), G = args[arg[Gc]].getAll(),
                      beta = args[arg[Beta]].getAll();
  std::vector<double> M = args[arg[Mm]].getAll();
  // Every element is scanned for NaN/Inf; those of the checked (sequence,
  // head) pairs are compared too.
  for (Arg a : {W, U, Kg}) {
    if (!has(a))
      continue;
    std::vector<double> expected;
    if (compare)
      expected =
          a == W   ? ref::computeW(problem, k, G, beta, M)
          : a == U ? ref::computeU(problem, args[arg[Vv]].getAll(), beta, M)
                   : ref::computeKg(problem, k, G);
    const HostTensor &t = args[arg[a]];
    outputs.push_back(compareRows(kArgs[a].name, threshold(t.dtype(), a != Kg),
                                  t, expected, a == U ? V : K));
  }
}

} // namespace

std::unique_ptr<ProgramRunner> makeWYRecomputeRunner() {
  return std::make_unique<WYRecomputeRunner>();
}

} // namespace kda::run
