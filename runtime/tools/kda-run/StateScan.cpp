//===- StateScan.cpp - kda-run for program=state_scan ---------------------===//
//
// Arguments kg, w [B,T,HV,K] (the I/O dtype), u [B,T,HV,V], G [B,T,HV,K]
// f32, optional initial_state [N,HV,K,V] f32 ([N,HV,V,K] with
// state_layout=vk), optional cu_seqlens; outputs h [B,NT,HV,K,V] (I/O
// dtype; V,K with vk), v_new [B,T,HV,V] (dtype of u) and final_state
// (like initial_state), at least one of them.
//
// Inputs are those the earlier stages give on fla-like random data: q, k ~
// randn, L2-normalized per row (k of q/k head hv / (HV / H)); v ~ randn;
// g = logsigmoid(randn) / gate_norm, -1000 with probability --mask-p;
// beta = sigmoid(randn); then the float64 reference's gate cumsum, Akk,
// solve, and WY recompute give G, w, u and kg, which are stored rounded to
// their dtypes; initial_state ~ randn. The reference scan is computed from
// the stored (rounded) values, per (sequence, value head), in parallel, so
// --check-heads N computes N pairs only.
//
// Checked: h at every chunk slot of every checked pair, v_new at every
// valid row, and final_state (for sequences without tokens: exactly their
// initial state, or 0); any of the three outputs may be absent (a result
// the program does not return).
//
//===----------------------------------------------------------------------===//

#include "Gates.h"
#include "Parallel.h"
#include "RandomStream.h"
#include "Setup.h"
#include "StageRunner.h"

#include "kda/Reference/Reference.h"

namespace kda::run {

namespace {

/// The arguments of a kda.state_scan bundle, by manifest name.
enum Arg { Kg, W, U, Gc, H0, Hout, VNew, Ht, NumArgs };
constexpr const char *kArgNames[NumArgs] = {
    "kg", "w", "u", "G", "initial_state", "h", "v_new", "final_state"};

/// The comparisons, in the order of the table.
enum Row { RowH, RowVNew, RowHt };

/// kda.state_scan: the inter-chunk state recurrence.
class StateScanRunner : public StageRunner {
  bool setUp(const rt::Manifest &m, std::string &error) override;
  void makeInputs(Tensors &args) override;
  void compareOutputs(const Tensors &args, Table &outputs) override;

  /// The reference problem of `len` rows of one sequence and value head.
  ref::Problem subProblem(int64_t len) const;
  /// G, w, u and kg of pair `pair` from the raw q/k/v/g/beta draws.
  void makeStageInputs(const std::vector<double> &k,
                       const std::vector<double> &vRaw,
                       const std::vector<double> &g,
                       const std::vector<double> &beta, const HeadPair &pair,
                       Tensors &args) const;
  /// Offset in h of the state matrix of chunk `c` of pair `pair`.
  int64_t hOffset(const HeadPair &pair, int64_t c) const;
  /// Compares (when `compare`) and scans for NaN/Inf the outputs of `pair`.
  void checkPair(const Tensors &args, const HeadPair &pair, bool compare,
                 Table &rows) const;

  bool vk = false;
  rt::DType io = rt::DType::F32, vType = rt::DType::F32;
  /// chunk_offsets: the first global chunk id of each sequence.
  std::vector<int64_t> chunkOffsets;
};

bool StateScanRunner::setUp(const rt::Manifest &m, std::string &error) {
  arg.assign(NumArgs, -1);
  for (int a = 0; a < NumArgs; ++a) {
    arg[a] = m.argIndex(kArgNames[a]);
    bool optional = a >= H0; // initial_state and every output
    rt::ArgRole role = a < Hout ? rt::ArgRole::Input : rt::ArgRole::Output;
    if (arg[a] < 0 && !optional) {
      error = std::string("the bundle (program=state_scan) has no argument '") +
              kArgNames[a] + "'";
      return false;
    }
    if (arg[a] >= 0 && m.args[arg[a]].role != role) {
      error = std::string("the bundle's '") + kArgNames[a] + "' must be an " +
              (role == rt::ArgRole::Input ? "input" : "output");
      return false;
    }
  }

  if (!has(Hout) && !has(VNew) && !has(Ht)) {
    error = "the bundle (program=state_scan) has none of the outputs 'h', "
            "'v_new' and 'final_state'";
    return false;
  }

  // Ranks and dtypes.
  io = m.args[arg[Kg]].dtype;
  vType = m.args[arg[U]].dtype;
  for (int a = 0; a < NumArgs; ++a) {
    if (!has(a))
      continue;
    const rt::ArgSpec &spec = m.args[arg[a]];
    const int rank = a == Hout ? 5 : 4;
    if (spec.rank() != rank) {
      error = std::string("the bundle's '") + kArgNames[a] +
              "' must have rank " + std::to_string(rank) + ", it is " +
              spec.dimsText;
      return false;
    }
    bool f32 = a == Gc || a == H0 || a == Ht;
    rt::DType want = f32 ? rt::DType::F32 : (a == U || a == VNew) ? vType : io;
    if (!isFloat(want) || spec.dtype != want) {
      error = std::string("the bundle's '") + kArgNames[a] + "' is " +
              rt::dtypeName(spec.dtype) + "; expected " +
              (isFloat(want) ? rt::dtypeName(want) : "f32, f16 or bf16");
      return false;
    }
  }
  if (!checkDtypeFlag(opt, io, "input dtype", "kg", error))
    return false;

  // Sizes: B and T from the flags; HV, K, V and the chunk size from the
  // bundle; H (the q/k heads the inputs are made with) from --heads.
  const rt::ArgSpec &kg = m.args[arg[Kg]];
  const rt::ArgSpec &u = m.args[arg[U]];
  if (!checkStaticDim(kg, 0, opt.batch, "--batch", "static batch size",
                      error) ||
      !checkStaticDim(kg, 1, opt.seqLen, "--seq-len", "static token count",
                      error) ||
      !checkStaticDim(kg, 2, opt.valueHeads, "--value-heads", "HV", error))
    return false;
  takeFlagSizes();
  if (!checkHeadGroups(H, HV, error))
    return false;
  if (!kg.dims[3].isStatic() || !u.dims[3].isStatic()) {
    error = "the bundle's 'kg' and 'u' must have a static last dimension";
    return false;
  }
  K = kg.dims[3].size;
  V = u.dims[3].size;
  const std::string *chunk = m.key("chunk");
  if (!parseKeyInt(chunk, BT) || (BT != 16 && BT != 32 && BT != 64)) {
    error = "the bundle has no key chunk=16, chunk=32 or chunk=64";
    return false;
  }
  const std::string *layout = m.key("state_layout");
  if (layout && *layout != "kv" && *layout != "vk") {
    error = "the bundle's key state_layout=" + *layout + " is not kv or vk";
    return false;
  }
  vk = layout && *layout == "vk";
  if (!checkCuSeqlens(opt, m, B, T, error))
    return false;
  // Global chunk ids: b * NT + c for fixed length, chunk_offsets[n] + c for
  // varlen (B = 1).
  countChunks();
  int64_t total = 0;
  for (const Sequence &s : seqs) {
    chunkOffsets.push_back(total);
    total += (s.length() + BT - 1) / BT;
  }

  // Every argument's shape.
  if (!sizeAll(m, {"B", "T", "HV", "K", "V", "N", "NT"}, error))
    return false;
  if (!checkShapes(m, "state_scan", vk, error))
    return false;
  pickPairs(HV);

  // A row in the middle of v_new, else the last chunk's entering state in
  // h, else the final state, of the first checked pair.
  if (has(VNew)) {
    injectAtMiddleRow(arg[VNew], V);
  } else if (const HeadPair *p = firstCheckedPair()) {
    const Sequence &s = seqs[p->seq];
    injectAt(arg[has(Hout) ? Hout : Ht],
             has(Hout) ? hOffset(*p, (s.length() - 1) / BT)
                       : (static_cast<int64_t>(p->seq) * HV + p->head) * K * V);
  }
  description = sizesText() + " V=" + std::to_string(V) +
                " chunk=" + std::to_string(BT) + " dtype=" + rt::dtypeName(io) +
                " v_dtype=" + rt::dtypeName(vType) +
                " layout=" + (vk ? "vk" : "kv") +
                " initial_state=" + (has(H0) ? "1" : "0") +
                " final_state=" + (has(Ht) ? "1" : "0") + cuSeqlensText() +
                inputOptionsText(opt);
  return true;
}

ref::Problem StateScanRunner::subProblem(int64_t len) const {
  ref::Problem p = pairProblem(len, K, V, BT);
  p.stateLayout = vk ? ref::StateLayout::VK : ref::StateLayout::KV;
  return p;
}

int64_t StateScanRunner::hOffset(const HeadPair &pair, int64_t c) const {
  // Fixed length: batch entry = sequence, slot c; varlen: slot
  // chunk_offsets[n] + c of batch entry 0.
  const int64_t slot = opt.cuSeqlens.empty()
                           ? static_cast<int64_t>(pair.seq) * NT + c
                           : chunkOffsets[pair.seq] + c;
  return (slot * HV + pair.head) * K * V;
}

void StateScanRunner::makeStageInputs(const std::vector<double> &k,
                                      const std::vector<double> &vRaw,
                                      const std::vector<double> &g,
                                      const std::vector<double> &beta,
                                      const HeadPair &pair,
                                      Tensors &args) const {
  const Sequence &s = seqs[pair.seq];
  const int64_t len = s.length(), nu = pair.head, hq = nu / (HV / H);
  auto slice = [&](const std::vector<double> &x, int64_t heads, int64_t head,
                   int64_t width) {
    std::vector<double> out(static_cast<size_t>(len * width));
    for (int64_t r = 0; r < len; ++r)
      for (int64_t d = 0; d < width; ++d)
        out[r * width + d] = x[((s.begin + r) * heads + head) * width + d];
    return out;
  };
  ref::Problem p = subProblem(len);
  std::vector<double> kk = slice(k, H, hq, K), vv = slice(vRaw, HV, nu, V);
  std::vector<double> gg = slice(g, HV, nu, K), bb = slice(beta, HV, nu, 1);
  std::vector<double> G = ref::gateCumsum(p, gg);
  // G as the kernel sees it (f32) feeds the later stages too.
  for (double &x : G)
    x = static_cast<double>(static_cast<float>(x));
  std::vector<double> M = ref::solveTril(p, ref::computeAkk(p, kk, G, bb));
  std::vector<double> w = ref::computeW(p, kk, G, bb, M);
  std::vector<double> u = ref::computeU(p, vv, bb, M);
  std::vector<double> kg = ref::computeKg(p, kk, G);
  auto scatter = [&](const std::vector<double> &x, HostTensor &t,
                     int64_t width) {
    for (int64_t r = 0; r < len; ++r)
      for (int64_t d = 0; d < width; ++d)
        t.set(((s.begin + r) * HV + nu) * width + d, x[r * width + d]);
  };
  scatter(G, args[arg[Gc]], K);
  scatter(w, args[arg[W]], K);
  scatter(u, args[arg[U]], V);
  scatter(kg, args[arg[Kg]], K);
}

void StateScanRunner::makeInputs(Tensors &args) {
  RandomStream stream(opt.seed);
  const int64_t rows = B * T;
  const RandomSegment qDraws = stream.normals(rows * H * K);
  const RandomSegment kDraws = stream.normals(rows * H * K);
  const RandomSegment vDraws = stream.normals(rows * HV * V);
  const RandomSegment gDraws = stream.normals(rows * HV * K);
  const RandomSegment maskDraws = stream.uniforms(rows * HV * K);
  const RandomSegment betaDraws = stream.normals(rows * HV);
  const RandomSegment h0Draws =
      stream.normals(has(H0) ? args[arg[H0]].size() : 0);
  (void)qDraws; // q is drawn for fla's stream order; the scan does not read it

  // k: rows of randn, L2-normalized.
  std::vector<double> k(static_cast<size_t>(rows * H * K));
  kDraws.draw([&](int64_t i, double v) { k[i] = v; });
  k = ref::l2normRows(k, K);
  std::vector<double> v(static_cast<size_t>(rows * HV * V));
  vDraws.draw([&](int64_t i, double x) { v[i] = x; });
  std::vector<double> g(static_cast<size_t>(rows * HV * K));
  drawPrecomputedGates(opt, gDraws, maskDraws,
                       [&](int64_t i, double x) { g[i] = x; });
  std::vector<double> beta(static_cast<size_t>(rows * HV));
  betaDraws.draw([&](int64_t i, double x) { beta[i] = ref::sigmoid(x); });

  parallelFor(pairs.all.size(), [&](size_t i) {
    makeStageInputs(k, v, g, beta, pairs.all[i], args);
  });
  if (has(H0))
    h0Draws.drawInto(args[arg[H0]]);
}

void StateScanRunner::checkPair(const Tensors &args, const HeadPair &pair,
                                bool compare, Table &rows) const {
  const Sequence &s = seqs[pair.seq];
  const int64_t len = s.length(), nu = pair.head, numChunks = (len + BT - 1) / BT;
  const int64_t stateAt = (static_cast<int64_t>(pair.seq) * HV + nu) * K * V;
  ref::ChunkStates expect;
  if (compare) {
    ref::Problem p = subProblem(len);
    std::vector<double> kg = gatherHead(args[arg[Kg]], s.begin, len, nu, HV, K);
    std::vector<double> w = gatherHead(args[arg[W]], s.begin, len, nu, HV, K);
    std::vector<double> u = gatherHead(args[arg[U]], s.begin, len, nu, HV, V);
    std::vector<double> G = gatherHead(args[arg[Gc]], s.begin, len, nu, HV, K);
    std::vector<double> h0;
    if (has(H0))
      for (int64_t i = 0; i < K * V; ++i)
        h0.push_back(args[arg[H0]].get(stateAt + i));
    expect = ref::chunkStates(p, w, u, kg, G, has(H0) ? &h0 : nullptr);
  }
  if (has(Hout))
    for (int64_t c = 0; c < numChunks; ++c)
      for (int64_t i = 0; i < K * V; ++i)
        rows[RowH].take(args[arg[Hout]].get(hOffset(pair, c) + i), expect.h,
                        c * K * V + i, compare);
  if (has(VNew))
    for (int64_t r = 0; r < len; ++r)
      for (int64_t d = 0; d < V; ++d)
        rows[RowVNew].take(
            args[arg[VNew]].get(((s.begin + r) * HV + nu) * V + d), expect.vNew,
            r * V + d, compare);
  if (has(Ht))
    for (int64_t i = 0; i < K * V; ++i)
      rows[RowHt].take(args[arg[Ht]].get(stateAt + i), expect.finalState, i,
                       compare);
}

void StateScanRunner::compareOutputs(const Tensors &args, Table &outputs) {
  // Accepted rms ratios against the float64 reference, which is computed
  // from the stored (rounded) kg, w, u, G and initial state, so only the
  // kernel's own roundings count. Worst ratios measured over the lit cases
  // (T = 1 .. 2000, K, V = 60 .. 128, chunk 32/64, both layouts, varlen):
  //
  //            h        v_new    final_state
  //   f32      4.1e-8   1.9e-8   5.0e-8
  //   f16      2.1e-4   2.2e-4   1.3e-4
  //   bf16     1.7e-3   1.9e-3   1.8e-3
  //
  // - f32: f32 products and sums only; accepted 1e-6 (20x).
  // - f16/bf16: the kernel rounds S to the I/O dtype for h and before
  //   w . S, and Vn before kg^T . Vn (fla's rounding points). One rounding
  //   is about 2^-9 / sqrt(3) = 1.1e-3 rms for bf16 (2^-12 / sqrt(3) =
  //   1.4e-4 for f16); the errors do not grow with the number of chunks
  //   (the decay and the fresh kg^T Vn terms keep them at the rounding
  //   level). Accepted about 2.5x the measured worst: 5e-3 for bf16, 6e-4
  //   for f16.
  const double limit = io == rt::DType::BF16  ? 5e-3
                       : io == rt::DType::F16 ? 6e-4
                                              : 1e-6;
  Table rows =
      scanPairs({{"h", limit}, {"v_new", limit}, {"final_state", limit}},
                [&](const HeadPair &pair, bool compare, Table &part) {
                  checkPair(args, pair, compare, part);
                });
  const bool compare = !opt.noCheck;

  // Sequences without tokens: the final state is the initial state (or 0),
  // exactly.
  if (has(Ht))
    for (size_t n = 0; n < seqs.size(); ++n) {
      if (seqs[n].length() != 0)
        continue;
      for (int64_t i = 0; i < HV * K * V; ++i) {
        const int64_t at = static_cast<int64_t>(n) * HV * K * V + i;
        double out = args[arg[Ht]].get(at);
        if (rows[RowHt].count(out) && compare)
          rows[RowHt].add(out, has(H0) ? args[arg[H0]].get(at) : 0.0);
      }
    }

  const bool present[] = {has(Hout), has(VNew), has(Ht)};
  for (size_t r = 0; r < rows.size(); ++r)
    if (present[r])
      outputs.push_back(rows[r]);
}

} // namespace

std::unique_ptr<ProgramRunner> makeStateScanRunner() {
  return std::make_unique<StateScanRunner>();
}

} // namespace kda::run
