//===- DecayApply.cpp - kda-run for program=decay_apply -------------------===//
//
// Arguments q, k [B,T,H,K] (the I/O dtype), G [B,T,HV,K] f32, optional
// cu_seqlens; outputs qg, kd, kg [B,T,HV,K] (q's dtype) and decay_last
// [B,NC,HV,K] f32 (2^G_last in chunk program slots), any of them may be
// absent.
//
// Inputs are those of the chunked forward on random q, k, v, g, beta drawn
// like fla's tests (StageInputs.h), rounded to the bundle's dtypes. The
// reference is ref::decayApply of the stored (rounded) inputs with the
// bundle's scale; every element of qg, kd and kg is scanned for NaN/Inf and
// compared, or, with --check-heads N, those of N random (sequence, head)
// pairs; decay_last is compared at every slot that holds a chunk (varlen
// slots of no chunk are never written).
//
//===----------------------------------------------------------------------===//

#include "LaterStage.h"

#include "kda/Reference/Reference.h"

#include <cstdlib>

namespace kda::run {

namespace {

/// The arguments of a kda.decay_apply bundle.
enum Arg { Q, Kk, Gc, Qg, Kd, Kg, DecayLast };

const std::vector<StageArg> kArgs = {
    {"q", false, 4, "float"}, {"k", false, 4, "q"}, {"G", false, 4, "f32"},
    {"qg", true, 4, "q"},     {"kd", true, 4, "q"}, {"kg", true, 4, "q"},
    {"decay_last", true, 4, "f32"}};

/// The rms ratio accepted for decay_last: 2^G_last in f32, one exp2 of an
/// f32 input (ex2.approx.ftz on the GPU: at most 2 ulp, about 2.4e-7 of the
/// value), as for the f32 outputs above.
constexpr double kDecayLastThreshold = 1e-6;

/// The rms ratio accepted for an output of dtype `dtype`: each output is
/// one product rounded to it (bf16, 8 significant bits: about 2^-9 /
/// sqrt(3) = 1.1e-3 rms; f16, 11 bits: 1.4e-4; f32: 1.4e-8 plus the
/// kernel's exp2). Measured on the CPU build: bf16 1.67e-3 (qg, kd) and
/// 0.88e-3 (kg), f32 3.6e-8. Accepted, as for kg of kda.wy_recompute
/// (WYRecompute.cpp): 4e-3, 5e-4 and 1e-6.
double threshold(rt::DType dtype) {
  return dtype == rt::DType::BF16  ? 4e-3
         : dtype == rt::DType::F16 ? 5e-4
                                   : 1e-6;
}

/// kda.decay_apply: the decayed queries and keys of the recurrent form.
class DecayApplyRunner : public LaterStageRunner {
  bool setUp(const rt::Manifest &m, std::string &error) override;
  void makeInputs(Tensors &args) override;
  void compareOutputs(const Tensors &args, Table &outputs) override;
};

bool DecayApplyRunner::setUp(const rt::Manifest &m, std::string &error) {
  // G's last dimension is K too: it stands in for V, which the stage has
  // not.
  if (!bindStage(m, "decay_apply", kArgs, "q", "G", error) ||
      !checkShapes(m, "decay_apply", /*vFirst=*/false, error))
    return false;
  const std::string *scaleKey = m.key("scale");
  if (!scaleKey || !isNumber(*scaleKey)) {
    error = "the bundle has no key scale=<number>";
    return false;
  }
  setProblem(std::strtod(scaleKey->c_str(), nullptr), ref::StateLayout::KV);
  // An element the check compares, in the first output present.
  for (Arg a : {Qg, Kd, Kg})
    if (has(a)) {
      injectAtMiddleRow(arg[a], K);
      break;
    }
  description = sizesText() + " chunk=" + std::to_string(BT) +
                " scale=" + *scaleKey +
                " dtype=" + rt::dtypeName(m.args[arg[Q]].dtype) +
                cuSeqlensText() + " seed=" + std::to_string(opt.seed);
  return true;
}

void DecayApplyRunner::makeInputs(Tensors &args) {
  StageInputs in = drawStageInputs(args[arg[Q]].dtype(), rt::DType::F32,
                                   rt::DType::F32);
  args[arg[Q]].setAll(in.q);
  args[arg[Kk]].setAll(in.k);
  args[arg[Gc]].setAll(in.G);
}

void DecayApplyRunner::compareOutputs(const Tensors &args, Table &outputs) {
  ref::DecayedKeys expected;
  if (!opt.noCheck)
    expected = ref::decayApply(problem, args[arg[Q]].getAll(),
                               args[arg[Kk]].getAll(), args[arg[Gc]].getAll());
  // Every element is scanned for NaN/Inf; those of the checked (sequence,
  // head) pairs are compared too.
  for (Arg a : {Qg, Kd, Kg}) {
    if (!has(a))
      continue;
    const HostTensor &t = args[arg[a]];
    const std::vector<double> &want = a == Qg   ? expected.qg
                                      : a == Kd ? expected.kd
                                                : expected.kg;
    outputs.push_back(
        compareRows(kArgs[a].name, threshold(t.dtype()), t, want, K));
  }
  if (has(DecayLast)) {
    const HostTensor &t = args[arg[DecayLast]];
    OutputStats st;
    st.name = "decay_last";
    st.threshold = kDecayLastThreshold;
    st.compared = !opt.noCheck;
    const int64_t HV = problem.HV;
    for (const ref::Chunk &c : problem.chunks())
      for (int64_t at = c.program * HV * K; at < (c.program + 1) * HV * K;
           ++at)
        st.take(t.get(at), expected.decayLast, at, !opt.noCheck);
    outputs.push_back(st);
  }
}

} // namespace

std::unique_ptr<ProgramRunner> makeDecayApplyRunner() {
  return std::make_unique<DecayApplyRunner>();
}

} // namespace kda::run
