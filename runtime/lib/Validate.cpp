//===- Validate.cpp - every check a launch must pass ----------------------===//
//
// Runs before any driver call: tensor count, dtypes, ranks, static dims,
// symbol consistency, strides, null and misaligned pointers, HV % H,
// cu_seqlens (host copy), workspace sizes and pointer, and the whole plan
// (grids and parameters, with division by zero and overflow).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "kda/Reference/StageTensors.h"

#include <cstdio>
#include <cstdlib>

namespace kda::rt::detail {

namespace {

Status invalid(const std::string &message) {
  return Status::error(ErrorCode::InvalidArgument, message);
}

std::string argLabel(const ArgSpec &a) {
  return "argument " + std::to_string(a.index) + " '" + a.name + "'";
}

std::string hex(const void *p) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%p", p);
  return buffer;
}

std::string joinDims(const int64_t *v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    if (i)
      s += ',';
    s += std::to_string(v[i]);
  }
  return s;
}

/// Value of a size that may be a symbol or a key (H, HV); false if neither.
bool lookupSize(const Manifest &m, const Plan &plan, const bool *bound,
                const char *name, int64_t &value) {
  int sym = m.symbolIndex(name);
  if (sym >= 0 && bound[sym]) {
    value = plan.symbols[sym];
    return true;
  }
  if (const std::string *k = m.key(name)) {
    char *end = nullptr;
    long long v = std::strtoll(k->c_str(), &end, 10);
    if (!k->empty() && end && *end == '\0') {
      value = v;
      return true;
    }
  }
  return false;
}

Status checkTensor(const Manifest &m, const ArgSpec &spec, const TensorArg &t,
                   CheckLevel level, Plan &plan, bool *bound, int *boundBy) {
  // Messages are built only on failure: the success path allocates nothing.
  auto label = [&] { return argLabel(spec); };
  if (t.rank != spec.rank())
    return invalid(label() + ": rank " + std::to_string(t.rank) +
                   ", the bundle's is " + std::to_string(spec.rank()) + " (" +
                   spec.dimsText + ")");
  if (t.dtype != spec.dtype)
    return invalid(label() + ": dtype " + dtypeName(t.dtype) +
                   ", the bundle's is " + dtypeName(spec.dtype));
  for (int d = 0; d < t.rank; ++d) {
    int64_t size = t.dims[d];
    if (size < 0)
      return invalid(label() + ": dimension " + std::to_string(d) + " is " +
                     std::to_string(size));
    const DimSpec &ds = spec.dims[d];
    if (ds.isStatic()) {
      if (size != ds.size)
        return invalid(label() + ": dimension " + std::to_string(d) + " is " +
                       std::to_string(size) + ", the bundle's is " +
                       std::to_string(ds.size) + " (" + spec.dimsText + ")");
      continue;
    }
    const std::string &sym = m.symbols[ds.symbol];
    if (!bound[ds.symbol]) {
      bound[ds.symbol] = true;
      boundBy[ds.symbol] = spec.index;
      plan.symbols[ds.symbol] = size;
    } else if (plan.symbols[ds.symbol] != size) {
      const ArgSpec &first = m.args[boundBy[ds.symbol]];
      return invalid(label() + ": dimension " + std::to_string(d) + " (" + sym +
                     ") is " + std::to_string(size) + ", but " + sym + " = " +
                     std::to_string(plan.symbols[ds.symbol]) + " from " +
                     argLabel(first));
    }
  }
  // Size in bytes must fit in 63 bits.
  int64_t bytes = static_cast<int64_t>(dtypeSize(t.dtype));
  for (int d = 0; d < t.rank; ++d)
    if (__builtin_mul_overflow(bytes, t.dims[d], &bytes))
      return invalid(label() + ": " + joinDims(t.dims, t.rank) +
                     " elements overflow 64 bits");
  if (t.strides) {
    int64_t expected[kMaxRank];
    int64_t stride = 1;
    for (int d = t.rank - 1; d >= 0; --d) {
      expected[d] = stride;
      stride *= t.dims[d] > 0 ? t.dims[d] : 1;
    }
    for (int d = 0; d < t.rank; ++d)
      if (t.dims[d] > 1 && t.strides[d] != expected[d])
        return invalid(label() + ": strides " + joinDims(t.strides, t.rank) +
                       " are not the dense row-major strides " +
                       joinDims(expected, t.rank) +
                       " (kernels need contiguous tensors)");
  }
  if (level == CheckLevel::Full && bytes > 0) {
    if (!t.data)
      return invalid(label() + ": null pointer");
    if (reinterpret_cast<uintptr_t>(t.data) % kTensorAlignment != 0)
      return invalid(label() + ": pointer " + hex(t.data) + " is not " +
                     std::to_string(kTensorAlignment) + "-byte aligned");
  }
  return Status::ok();
}

Status checkCuSeqlens(const Manifest &m, const LaunchArgs &a,
                      const Plan &plan) {
  if (m.cuSeqlensArg < 0) {
    if (a.cuSeqlensHost || a.numCuSeqlensHost)
      return invalid("cu_seqlens given, but the bundle takes none");
    return Status::ok();
  }
  const TensorArg &t = a.tensors[m.cuSeqlensArg];
  if (!a.cuSeqlensHost)
    return invalid("cu_seqlens: the host copy (cuSeqlensHost) is required "
                   "to validate the offsets");
  if (static_cast<int64_t>(a.numCuSeqlensHost) != t.dims[0])
    return invalid("cu_seqlens: the host copy has " +
                   std::to_string(a.numCuSeqlensHost) +
                   " entries, the tensor " + std::to_string(t.dims[0]));
  const int64_t *cu = a.cuSeqlensHost;
  size_t n = a.numCuSeqlensHost;
  if (n < 2)
    return invalid("cu_seqlens needs at least 2 entries, got " +
                   std::to_string(n));
  if (cu[0] != 0)
    return invalid("cu_seqlens must start at 0, got " + std::to_string(cu[0]));
  for (size_t i = 1; i < n; ++i)
    if (cu[i] < cu[i - 1])
      return invalid("cu_seqlens must be non-decreasing: cu_seqlens[" +
                     std::to_string(i) + "] = " + std::to_string(cu[i]) +
                     " < cu_seqlens[" + std::to_string(i - 1) +
                     "] = " + std::to_string(cu[i - 1]));
  int64_t T = plan.symbols[m.symbolIndex("T")];
  if (cu[n - 1] != T)
    return invalid("cu_seqlens must end at T = " + std::to_string(T) +
                   ", got " + std::to_string(cu[n - 1]));
  return Status::ok();
}

Status evalError(const std::string &where, const Expr &e, EvalError err) {
  return invalid(where + ": " + evalErrorName(err) + " in '" + e.text() + "'");
}

/// The state slot symbols: N (sequences of initial/final states) must be B,
/// or the number of sequences with cu_seqlens; NT (chunk slots of h) must be
/// ceil(T / chunk), or with cu_seqlens (host copy, checked at the Full
/// level) the sum of ceil(T_n / chunk); NC (chunk program slots of
/// decay_last) must be ceil(T / chunk), or floor(T / chunk) + N with
/// cu_seqlens.
/// Kernels index states by these slots, so a smaller buffer would be
/// written out of bounds.
Status checkStateSlots(const Manifest &m, const LaunchArgs &a,
                       CheckLevel level, const Plan &plan, const bool *bound) {
  auto symbol = [&](const char *name, int64_t &value) {
    int s = m.symbolIndex(name);
    if (s < 0 || !bound[s])
      return false;
    value = plan.symbols[s];
    return true;
  };
  const bool varlen = m.cuSeqlensArg >= 0;
  // B and T: symbols, or the static leading dimensions of the first
  // argument (every kda program's first argument is [B, T, ...]).
  const TensorArg &first = a.tensors[0];
  int64_t N, NT, NC, B = 0, T = 0, chunk = 0;
  if (!symbol("B", B) && first.rank >= 1)
    B = first.dims[0];
  if (!symbol("T", T) && first.rank >= 2)
    T = first.dims[1];
  if (symbol("N", N)) {
    int64_t expected = B;
    const char *what = "B";
    if (varlen) {
      expected = a.tensors[m.cuSeqlensArg].dims[0] - 1;
      what = "the number of sequences in cu_seqlens";
    }
    if (N != expected)
      return invalid("N = " + std::to_string(N) + " (state slots) must be " +
                     what + " = " + std::to_string(expected));
  }
  if (symbol("NC", NC)) {
    if (!lookupSize(m, plan, bound, "chunk", chunk) || chunk <= 0)
      return invalid("decay_last has a dimension NC, but the bundle has no "
                     "key chunk=<size>");
    const int64_t sequences =
        varlen ? a.tensors[m.cuSeqlensArg].dims[0] - 1 : 0;
    const int64_t expected =
        kda::ref::numChunkPrograms(T, chunk, varlen, sequences);
    if (NC != expected)
      return invalid("NC = " + std::to_string(NC) +
                     " (chunk program slots) must be " +
                     std::to_string(expected) +
                     (varlen ? " = floor(T / chunk) + the number of sequences"
                             : " = ceil(T / chunk)"));
  }
  if (!symbol("NT", NT))
    return Status::ok();
  if (!lookupSize(m, plan, bound, "chunk", chunk) || chunk <= 0)
    return invalid("h has a dimension NT, but the bundle has no key "
                   "chunk=<size>");
  int64_t expected = 0;
  if (!varlen) {
    expected = (T + chunk - 1) / chunk;
  } else {
    if (level != CheckLevel::Full || !a.cuSeqlensHost)
      return Status::ok();
    for (size_t i = 1; i < a.numCuSeqlensHost; ++i)
      expected += (a.cuSeqlensHost[i] - a.cuSeqlensHost[i - 1] + chunk - 1) /
                  chunk;
  }
  if (NT != expected)
    return invalid("NT = " + std::to_string(NT) +
                   " (chunk slots of h) must be " + std::to_string(expected) +
                   (varlen ? ", the number of chunks of the sequences"
                           : " = ceil(T / chunk)"));
  return Status::ok();
}

const char *const kAxis[3] = {"x", "y", "z"};

} // namespace

int writeDescriptor(uint64_t address, const int64_t *dims, int rank,
                    uint64_t *out) {
  out[0] = address;
  out[1] = address;
  out[2] = 0;
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    out[3 + d] = static_cast<uint64_t>(dims[d]);
    out[3 + rank + d] = static_cast<uint64_t>(stride);
    stride *= dims[d];
  }
  return 3 + 2 * rank;
}

Status validateLaunch(const Manifest &m, const LaunchArgs &a,
                      CheckLevel level, Plan &plan) {
  plan = Plan();
  size_t numArgs = m.args.size();
  if (a.numTensors != numArgs || (numArgs && !a.tensors)) {
    std::string names;
    for (const ArgSpec &s : m.args) {
      if (!names.empty())
        names += ", ";
      names += s.name;
    }
    return invalid("expected " + std::to_string(numArgs) + " tensors (" +
                   names + "), got " +
                   std::to_string(a.tensors ? a.numTensors : 0));
  }
  bool bound[kMaxSymbols] = {};
  int boundBy[kMaxSymbols] = {};
  for (size_t i = 0; i < numArgs; ++i)
    if (Status s = checkTensor(m, m.args[i], a.tensors[i], level, plan, bound,
                               boundBy);
        !s)
      return s;

  // Problem-level relations.
  int64_t H, HV;
  if (lookupSize(m, plan, bound, "H", H) &&
      lookupSize(m, plan, bound, "HV", HV)) {
    if (H < 1)
      return invalid("H = " + std::to_string(H) + " must be positive");
    if (HV % H != 0)
      return invalid("HV = " + std::to_string(HV) +
                     " is not a multiple of H = " + std::to_string(H));
  }
  if (m.cuSeqlensArg >= 0) {
    int b = m.symbolIndex("B");
    if (b >= 0 && plan.symbols[b] != 1)
      return invalid("cu_seqlens needs B = 1, got B = " +
                     std::to_string(plan.symbols[b]));
  }
  if (level == CheckLevel::Full)
    if (Status s = checkCuSeqlens(m, a, plan); !s)
      return s;
  if (Status s = checkStateSlots(m, a, level, plan, bound); !s)
    return s;

  // Workspaces, one after another at 256-byte aligned offsets.
  int64_t wsSize[kMaxWorkspaces] = {};
  int64_t offset = 0;
  for (size_t w = 0; w < m.workspaces.size(); ++w) {
    const WorkspaceSpec &ws = m.workspaces[w];
    auto where = [&] { return "workspace '" + ws.id + "'"; };
    int64_t bytes;
    if (EvalError e = ws.bytes.eval(a.tensors, numArgs, bytes);
        e != EvalError::None)
      return evalError(where(), ws.bytes, e);
    if (bytes < 0)
      return invalid(where() + ": size " + std::to_string(bytes) +
                     " is negative");
    int64_t rounded;
    if (__builtin_add_overflow(bytes, int64_t(kWorkspaceAlignment - 1),
                               &rounded))
      return invalid(where() + ": size overflows");
    rounded -= rounded % static_cast<int64_t>(kWorkspaceAlignment);
    wsSize[w] = bytes;
    plan.workspaceOffsets[w] = offset;
    if (__builtin_add_overflow(offset, rounded, &offset))
      return invalid(where() + ": total workspace size overflows");
  }
  plan.workspaceBytes = offset;

  // The plan: grids and parameters of every kernel.
  for (size_t k = 0; k < m.kernels.size(); ++k) {
    const KernelSpec &ks = m.kernels[k];
    for (int i = 0; i < 3; ++i) {
      auto where = [&] {
        return "kernel '" + ks.name + "' grid " + kAxis[i];
      };
      int64_t g;
      if (EvalError e = ks.grid[i].eval(a.tensors, numArgs, g);
          e != EvalError::None)
        return evalError(where(), ks.grid[i], e);
      if (g < 0)
        return invalid(where() + " = " + std::to_string(g) + " is negative");
      int64_t limit = i == 0 ? 2147483647 : 65535;
      if (g > limit)
        return invalid(where() + " = " + std::to_string(g) + " exceeds " +
                       std::to_string(limit));
      plan.grids[k][i] = g;
    }
    for (size_t p = 0; p < ks.params.size(); ++p) {
      const ParamSpec &ps = ks.params[p];
      auto where = [&] {
        return "kernel '" + ks.name + "' parameter " + std::to_string(p);
      };
      if (ps.kind == ParamSpec::Kind::Index) {
        int64_t v;
        if (EvalError e = ps.value.eval(a.tensors, numArgs, v);
            e != EvalError::None)
          return evalError(where(), ps.value, e);
      } else if (ps.kind == ParamSpec::Kind::Workspace) {
        int64_t bytes = static_cast<int64_t>(dtypeSize(ps.dtype));
        for (const Expr &d : ps.dims) {
          int64_t v;
          if (EvalError e = d.eval(a.tensors, numArgs, v);
              e != EvalError::None)
            return evalError(where(), d, e);
          if (v < 0)
            return invalid(where() + ": workspace dimension '" + d.text() +
                           "' = " + std::to_string(v) + " is negative");
          if (__builtin_mul_overflow(bytes, v, &bytes))
            return invalid(where() + ": workspace view size overflows");
        }
        const WorkspaceSpec &ws = m.workspaces[ps.workspace];
        if (bytes > wsSize[ps.workspace])
          return invalid(where() + ": a " + dtypeName(ps.dtype) +
                         " view of workspace '" + ws.id + "' needs " +
                         std::to_string(bytes) + " bytes, the workspace has " +
                         std::to_string(wsSize[ps.workspace]));
      }
    }
  }

  if (level == CheckLevel::Full && plan.workspaceBytes > 0) {
    if (!a.workspace)
      return invalid("workspace: null pointer, the plan needs " +
                     std::to_string(plan.workspaceBytes) + " bytes");
    if (a.workspaceBytes < static_cast<uint64_t>(plan.workspaceBytes))
      return invalid("workspace too small: the plan needs " +
                     std::to_string(plan.workspaceBytes) + " bytes, got " +
                     std::to_string(a.workspaceBytes));
    if (reinterpret_cast<uintptr_t>(a.workspace) % kWorkspaceAlignment != 0)
      return invalid("workspace pointer " + hex(a.workspace) + " is not " +
                     std::to_string(kWorkspaceAlignment) + "-byte aligned");
  }
  return Status::ok();
}

} // namespace kda::rt::detail
