//===- ChunkRecurrence.cpp - kda-run for program=chunk_recurrence ---------===//
//
// Arguments qg, kd, kg [B,T,HV,K] (the I/O dtype), v [B,T,HV,V], beta
// [B,T,HV], M and Aqk [B,T,HV,BT] (qg's dtype), decay_last [B,NC,HV,K]
// f32 (2^G_last in chunk program slots: ceil(T/BT), or floor(T/BT) + N
// with cu_seqlens), optional initial_state [N,HV,K,V] f32 ([N,HV,V,K] with
// state_layout=vk), optional cu_seqlens; outputs o [B,T,HV,V] (v's dtype)
// and, optionally, final_state (like initial_state). The stage has no q/k heads: --heads
// must divide --value-heads (the q and k the inputs are made from have
// that many heads) and equal it when the bundle's HV is static.
//
// Inputs are those of the chunked forward on random q, k, v, g, beta drawn
// like fla's tests (StageInputs.h), rounded to the bundle's dtypes: qg, kd,
// kg and decay_last are the reference's ref::decayApply of q, k and G
// (scale K^-0.5; decay_last's slots of no chunk NaN, where the kernel must
// not read),
// M and Aqk the reference's solve and diagonal blocks, rounded to qg's
// dtype, with NaN above the diagonal, where the kernel must not read;
// initial_state ~ randn. The reference is ref::chunkRecurrence of the
// stored (rounded) inputs. Every element of o is scanned for NaN/Inf and
// compared, or, with --check-heads N, those of N random (sequence, head)
// pairs; the final state is compared whole.
//
//===----------------------------------------------------------------------===//

#include "LaterStage.h"
#include "RandomStream.h"

#include "kda/Reference/Reference.h"

#include <cmath>

namespace kda::run {

namespace {

/// The arguments of a kda.chunk_recurrence bundle (the initial state, an
/// optional input, is bound apart).
enum Arg { Qg, Kd, Kg, Vv, Beta, Mm, Aqk, DecayLast, O, Ht, H0 };

const std::vector<StageArg> kArgs = {
    {"qg", false, 4, "float"}, {"kd", false, 4, "qg"},
    {"kg", false, 4, "qg"},    {"v", false, 4, "float"},
    {"beta", false, 3, "float"}, {"M", false, 4, "qg"},
    {"Aqk", false, 4, "qg"},   {"decay_last", false, 4, "f32"},
    {"o", true, 4, "v"},       {"final_state", true, 4, "f32"}};

/// The rms ratio accepted for the outputs when the I/O dtype is `dtype`.
///
/// The reference runs in float64 on the stored inputs, so only the
/// kernel's own roundings count: the state rounded to the I/O dtype before
/// kd . S and qg . S, x = beta (v - kd S) and v_new rounded before their
/// dots, o rounded at the end (the roundings of kda.state_scan and
/// kda.output together). One rounding to bf16 is about 1.1e-3 rms, to f16
/// 1.4e-4; with f32 I/O the dots that read M, qg and Aqk run at tf32
/// (1.4e-4 per operand). Measured on the CPU build (o; T = 100 .. 2000,
/// K = 64 .. 128, chunk 16 .. 64, seeds 0-3, gates masked to -1000 or
/// divided by 10): bf16 2.6-2.9e-3, f16 3.2-3.5e-4 (final state 2.4e-5),
/// f32 3.4e-4 (final state 2.2e-4); the spread over seeds and lengths is a
/// few percent. Accepted: 5e-3 for bf16 and 6e-4 for f16, as the state
/// scan's, and 1e-3 for f32, as the output's.
double threshold(rt::DType dtype) {
  return dtype == rt::DType::BF16  ? 5e-3
         : dtype == rt::DType::F16 ? 6e-4
                                   : 1e-3;
}

/// kda.chunk_recurrence: the recurrent form of the state scan and output.
class ChunkRecurrenceRunner : public LaterStageRunner {
  bool setUp(const rt::Manifest &m, std::string &error) override;
  void makeInputs(Tensors &args) override;
  void compareOutputs(const Tensors &args, Table &outputs) override;

  bool vk = false;
};

bool ChunkRecurrenceRunner::setUp(const rt::Manifest &m, std::string &error) {
  if (!bindStage(m, "chunk_recurrence", kArgs, "qg", "v", error))
    return false;
  // The optional initial state.
  arg.push_back(m.argIndex("initial_state"));
  if (has(H0)) {
    const rt::ArgSpec &h0 = m.args[arg[H0]];
    if (h0.role != rt::ArgRole::Input || h0.rank() != 4 ||
        h0.dtype != rt::DType::F32) {
      error = "the bundle's 'initial_state' must be an f32 input of rank 4, "
              "it is " +
              std::string(rt::dtypeName(h0.dtype)) + " " + h0.dimsText;
      return false;
    }
  }
  const std::string *layoutKey = m.key("state_layout");
  if (!layoutKey || (*layoutKey != "kv" && *layoutKey != "vk")) {
    error = "the bundle has no key state_layout=kv or state_layout=vk";
    return false;
  }
  vk = *layoutKey == "vk";
  if (!checkShapes(m, "chunk_recurrence", vk, error))
    return false;
  setProblem(1.0 / std::sqrt(static_cast<double>(K)),
             vk ? ref::StateLayout::VK : ref::StateLayout::KV);
  // An element the check compares.
  injectAtMiddleRow(arg[O], V);
  description = sizesText() + " V=" + std::to_string(V) +
                " chunk=" + std::to_string(BT) + " state_layout=" + *layoutKey +
                " dtype=" + rt::dtypeName(m.args[arg[Qg]].dtype) +
                " v=" + rt::dtypeName(m.args[arg[Vv]].dtype) +
                " initial_state=" + (has(H0) ? "1" : "0") +
                " final_state=" + (has(Ht) ? "1" : "0") + cuSeqlensText() +
                inputOptionsText(opt);
  return true;
}

void ChunkRecurrenceRunner::makeInputs(Tensors &args) {
  StageInputs in = drawStageInputs(args[arg[Qg]].dtype(), args[arg[Vv]].dtype(),
                                   args[arg[Beta]].dtype());
  ref::DecayedKeys keys = ref::decayApply(problem, in.q, in.k, in.G);
  args[arg[Qg]].setAll(keys.qg);
  args[arg[Kd]].setAll(keys.kd);
  args[arg[Kg]].setAll(keys.kg);
  args[arg[Vv]].setAll(in.v);
  args[arg[Beta]].setAll(in.beta);
  // Slots of no chunk (varlen) are NaN: the kernel must not read them.
  std::vector<double> decayLast = keys.decayLast;
  std::vector<bool> used(decayLast.size() / (HV * K), false);
  for (const ref::Chunk &c : problem.chunks())
    used[c.program] = true;
  for (size_t i = 0; i < decayLast.size(); ++i)
    if (!used[i / (HV * K)])
      decayLast[i] = std::nan("");
  args[arg[DecayLast]].setAll(decayLast);
  storeLowerTriangles(args[arg[Mm]], in.forward.M);
  storeLowerTriangles(args[arg[Aqk]], in.forward.Aqk);
  if (has(H0)) {
    // A stream of its own, after the stage inputs' draws.
    RandomStream stream(opt.seed + 1);
    stream.normals(args[arg[H0]].size()).drawInto(args[arg[H0]]);
  }
}

void ChunkRecurrenceRunner::compareOutputs(const Tensors &args,
                                           Table &outputs) {
  const bool compare = !opt.noCheck;
  ref::RecurrentOutputs expected;
  if (compare) {
    ref::DecayedKeys keys{args[arg[Qg]].getAll(), args[arg[Kd]].getAll(),
                          args[arg[Kg]].getAll(),
                          args[arg[DecayLast]].getAll()};
    std::vector<double> h0;
    if (has(H0))
      h0 = args[arg[H0]].getAll();
    expected = ref::chunkRecurrence(
        problem, keys, args[arg[Vv]].getAll(), args[arg[Beta]].getAll(),
        args[arg[Mm]].getAll(), args[arg[Aqk]].getAll(),
        has(H0) ? &h0 : nullptr);
  }
  const double limit = threshold(args[arg[Qg]].dtype());
  outputs.push_back(compareRows("o", limit, args[arg[O]], expected.o, V));
  if (has(Ht)) {
    const HostTensor &ht = args[arg[Ht]];
    OutputStats st;
    st.name = "final_state";
    st.threshold = limit;
    st.compared = compare;
    for (int64_t i = 0; i < ht.size(); ++i)
      st.take(ht.get(i), expected.finalState, i, compare);
    outputs.push_back(st);
  }
}

} // namespace

std::unique_ptr<ProgramRunner> makeChunkRecurrenceRunner() {
  return std::make_unique<ChunkRecurrenceRunner>();
}

} // namespace kda::run
