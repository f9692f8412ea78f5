//===- Manifest.cpp - the text manifest of a kernel bundle ----------------===//
//
// One statement per line, tokens separated by single spaces, '#' comment
// lines; statements in the order abi, chip, entry, key*, arg*, workspace*,
// then kernel blocks (kernel, block, shared, grid, param*, end-kernel).
//
//===----------------------------------------------------------------------===//

#include "kda/Runtime/Bundle.h"

#include <climits>

namespace kda::rt {

const std::string *Manifest::key(std::string_view name) const {
  for (const auto &kv : keys)
    if (kv.first == name)
      return &kv.second;
  return nullptr;
}

int Manifest::argIndex(std::string_view name) const {
  for (const ArgSpec &a : args)
    if (a.name == name)
      return a.index;
  return -1;
}

int Manifest::symbolIndex(std::string_view name) const {
  for (size_t i = 0; i < symbols.size(); ++i)
    if (symbols[i] == name)
      return static_cast<int>(i);
  return -1;
}

namespace {

bool isIdentifier(std::string_view s) {
  if (s.empty() || !((s[0] >= 'A' && s[0] <= 'Z') ||
                     (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
    return false;
  for (char c : s)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
          (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

bool parseInt(std::string_view s, int64_t &out) {
  if (s.empty() || s.size() > 18)
    return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

/// Splits at commas that are not inside parentheses.
std::vector<std::string_view> splitTopLevel(std::string_view s) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(')
      ++depth;
    else if (s[i] == ')')
      --depth;
    else if (s[i] == ',' && depth == 0) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start));
  return parts;
}

/// Statement groups in their required order.
enum Stage { StAbi, StChip, StEntry, StKey, StArg, StWorkspace, StKernel };

/// Parts of a kernel block in their required order.
enum KernelPart { KpNone, KpKernel, KpBlock, KpShared, KpGrid, KpParam };

class ManifestParser {
public:
  ManifestParser(std::string_view text, int headerAbi, Manifest &m)
      : text(text), headerAbi(headerAbi), m(m) {}

  Status run() {
    m = Manifest();
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t eol = text.find('\n', pos);
      if (eol == std::string_view::npos)
        eol = text.size();
      std::string_view line = text.substr(pos, eol - pos);
      ++lineNo;
      pos = eol + 1;
      if (line.empty() || line[0] == '#')
        continue;
      if (Status s = statement(line); !s)
        return s;
    }
    return finish();
  }

private:
  Status error(const std::string &message) const {
    return Status::error(ErrorCode::InvalidBundle,
                         "manifest line " + std::to_string(lineNo) + ": " +
                             message);
  }
  static Status globalError(const std::string &message) {
    return Status::error(ErrorCode::InvalidBundle, "manifest: " + message);
  }

  Status tokenize(std::string_view line) {
    tokens.clear();
    size_t start = 0;
    for (size_t i = 0; i <= line.size(); ++i) {
      if (i < line.size() && line[i] != ' ') {
        unsigned char c = static_cast<unsigned char>(line[i]);
        if (c < 0x21 || c > 0x7e)
          return error("unexpected character (code " + std::to_string(c) +
                       ")");
        continue;
      }
      if (i == start)
        return error("tokens must be separated by single spaces");
      tokens.push_back(line.substr(start, i - start));
      start = i + 1;
    }
    return Status::ok();
  }

  Status order(Stage stage, const char *what) {
    if (kernelPart != KpNone)
      return error(std::string("'") + what +
                   "' inside kernel block '" + m.kernels.back().name +
                   "' (missing 'end-kernel'?)");
    if (stage < current)
      return error(std::string("'") + what + "' out of order (statements "
                   "go abi, chip, entry, key, arg, workspace, kernel)");
    current = stage;
    return Status::ok();
  }

  Status expectTokens(size_t n, const char *usage) {
    if (tokens.size() != n)
      return error(std::string("expected '") + usage + "'");
    return Status::ok();
  }

  Status parseExpr(std::string_view text, Expr &out) {
    std::string why;
    if (!Expr::parse(text, out, why))
      return error(why);
    Status s;
    out.forEachDim([&](int arg, int dim) {
      if (!s)
        return;
      if (arg >= static_cast<int>(m.args.size()))
        s = error("in '" + std::string(text) + "': dim(" +
                  std::to_string(arg) + "," + std::to_string(dim) +
                  ") refers to argument " + std::to_string(arg) +
                  ", but there are " + std::to_string(m.args.size()) +
                  " arguments");
      else if (dim >= m.args[arg].rank())
        s = error("in '" + std::string(text) + "': dim(" +
                  std::to_string(arg) + "," + std::to_string(dim) +
                  "): argument " + std::to_string(arg) + " has rank " +
                  std::to_string(m.args[arg].rank()));
    });
    return s;
  }

  Status statement(std::string_view line) {
    if (Status s = tokenize(line); !s)
      return s;
    std::string_view op = tokens[0];
    bool first = !sawAbi;
    if (first && op != "abi")
      return error("the manifest must start with 'abi <version>'");
    if (op == "abi")
      return abiLine();
    if (op == "chip")
      return chipLine();
    if (op == "entry")
      return entryLine();
    if (op == "key")
      return keyLine();
    if (op == "arg")
      return argLine();
    if (op == "workspace")
      return workspaceLine();
    if (op == "kernel")
      return kernelLine();
    if (op == "block" || op == "shared" || op == "grid" || op == "param" ||
        op == "end-kernel")
      return kernelPartLine(op);
    return error("unknown statement '" + std::string(op) + "'");
  }

  Status abiLine() {
    if (sawAbi)
      return error("duplicate 'abi'");
    sawAbi = true;
    if (Status s = expectTokens(2, "abi <version>"); !s)
      return s;
    int64_t v;
    if (!parseInt(tokens[1], v))
      return error("bad ABI version '" + std::string(tokens[1]) + "'");
    if (v != headerAbi)
      return error("abi " + std::to_string(v) +
                   " does not match the bundle header's ABI version " +
                   std::to_string(headerAbi));
    m.abi = static_cast<int>(v);
    current = StAbi;
    return Status::ok();
  }

  Status chipLine() {
    if (current != StAbi || !m.chip.empty())
      return error(m.chip.empty() ? "'chip' must follow 'abi'"
                                  : "duplicate 'chip'");
    if (Status s = expectTokens(2, "chip <sm_NN>"); !s)
      return s;
    std::string_view chip = tokens[1];
    std::string_view digits = chip.substr(chip.size() < 3 ? chip.size() : 3);
    bool arch = false;
    if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) {
      arch = true;
      digits.remove_suffix(1);
    }
    int64_t number;
    if (chip.substr(0, 3) != "sm_" || digits.size() < 2 ||
        !parseInt(digits, number))
      return error("bad chip '" + std::string(chip) +
                   "': expected sm_<NN> (sm_90, sm_90a, ...)");
    m.chip = std::string(chip);
    m.chipMajor = static_cast<int>(number / 10);
    m.chipMinor = static_cast<int>(number % 10);
    m.chipArchSpecific = arch;
    current = StChip;
    return Status::ok();
  }

  Status entryLine() {
    if (current != StChip)
      return error(m.entry.empty() ? "'entry' must follow 'chip'"
                                   : "duplicate 'entry'");
    if (Status s = expectTokens(2, "entry <name>"); !s)
      return s;
    m.entry = std::string(tokens[1]);
    current = StEntry;
    return Status::ok();
  }

  Status keyLine() {
    if (current < StEntry)
      return error("'key' before 'entry'");
    if (Status s = order(StKey, "key"); !s)
      return s;
    if (tokens.size() < 2)
      return error("expected 'key <name>=<value> ...'");
    for (size_t i = 1; i < tokens.size(); ++i) {
      size_t eq = tokens[i].find('=');
      if (eq == std::string_view::npos || eq == 0)
        return error("bad key '" + std::string(tokens[i]) +
                     "': expected <name>=<value>");
      std::string name(tokens[i].substr(0, eq));
      if (m.key(name))
        return error("duplicate key '" + name + "'");
      m.keys.emplace_back(name, std::string(tokens[i].substr(eq + 1)));
    }
    return Status::ok();
  }

  Status argLine() {
    if (current < StEntry)
      return error("'arg' before 'entry'");
    if (Status s = order(StArg, "arg"); !s)
      return s;
    if (Status s = expectTokens(6, "arg <index> <name> <role> <dtype> <dims>");
        !s)
      return s;
    ArgSpec a;
    int64_t index;
    if (!parseInt(tokens[1], index) ||
        index != static_cast<int64_t>(m.args.size()))
      return error("arg index '" + std::string(tokens[1]) + "', expected " +
                   std::to_string(m.args.size()));
    if (m.args.size() >= static_cast<size_t>(kMaxArgs))
      return error("more than " + std::to_string(kMaxArgs) + " arguments");
    a.index = static_cast<int>(index);
    if (!isIdentifier(tokens[2]))
      return error("bad argument name '" + std::string(tokens[2]) + "'");
    a.name = std::string(tokens[2]);
    if (m.argIndex(a.name) >= 0)
      return error("duplicate argument name '" + a.name + "'");
    if (tokens[3] == "input")
      a.role = ArgRole::Input;
    else if (tokens[3] == "output")
      a.role = ArgRole::Output;
    else
      return error("unknown role '" + std::string(tokens[3]) +
                   "' (expected input or output)");
    if (a.role == ArgRole::Input && !m.args.empty() &&
        m.args.back().role == ArgRole::Output)
      return error("input argument '" + a.name +
                   "' after an output (inputs come first)");
    if (!parseDType(tokens[4], a.dtype))
      return error("unknown dtype '" + std::string(tokens[4]) +
                   "' (expected f32, f16, bf16, i32 or i64)");
    a.dimsText = std::string(tokens[5]);
    for (std::string_view d : splitTopLevel(tokens[5])) {
      DimSpec dim;
      int64_t size;
      if (parseInt(d, size)) {
        dim.size = size;
      } else if (isIdentifier(d)) {
        int sym = m.symbolIndex(d);
        if (sym < 0) {
          if (m.symbols.size() >= static_cast<size_t>(kMaxSymbols))
            return error("more than " + std::to_string(kMaxSymbols) +
                         " dimension symbols");
          m.symbols.emplace_back(d);
          sym = static_cast<int>(m.symbols.size()) - 1;
        }
        dim.symbol = sym;
      } else {
        return error("bad dimension '" + std::string(d) + "' in '" +
                     a.dimsText + "' (expected a size or a symbol)");
      }
      a.dims.push_back(dim);
    }
    if (a.dims.size() > static_cast<size_t>(kMaxRank))
      return error("argument '" + a.name + "' has rank " +
                   std::to_string(a.dims.size()) + " (at most " +
                   std::to_string(kMaxRank) + ")");
    if (a.role == ArgRole::Input)
      ++m.numInputs;
    m.args.push_back(std::move(a));
    return Status::ok();
  }

  Status workspaceLine() {
    if (current < StEntry)
      return error("'workspace' before 'entry'");
    if (Status s = order(StWorkspace, "workspace"); !s)
      return s;
    if (Status s = expectTokens(3, "workspace <id> <bytes-expr>"); !s)
      return s;
    if (m.workspaces.size() >= static_cast<size_t>(kMaxWorkspaces))
      return error("more than " + std::to_string(kMaxWorkspaces) +
                   " workspaces");
    WorkspaceSpec w;
    w.id = std::string(tokens[1]);
    for (const WorkspaceSpec &other : m.workspaces)
      if (other.id == w.id)
        return error("duplicate workspace '" + w.id + "'");
    if (Status s = parseExpr(tokens[2], w.bytes); !s)
      return s;
    m.workspaces.push_back(std::move(w));
    return Status::ok();
  }

  Status kernelLine() {
    if (current < StEntry)
      return error("'kernel' before 'entry'");
    if (Status s = order(StKernel, "kernel"); !s)
      return s;
    if (Status s = expectTokens(2, "kernel <name>"); !s)
      return s;
    if (m.kernels.size() >= static_cast<size_t>(kMaxKernels))
      return error("more than " + std::to_string(kMaxKernels) + " kernels");
    KernelSpec k;
    k.name = std::string(tokens[1]);
    k.line = lineNo;
    m.kernels.push_back(std::move(k));
    kernelPart = KpKernel;
    return Status::ok();
  }

  Status kernelPartLine(std::string_view op) {
    if (kernelPart == KpNone)
      return error("'" + std::string(op) + "' outside a kernel block");
    KernelSpec &k = m.kernels.back();
    auto expectAfter = [&](KernelPart previous, const char *what) -> Status {
      if (kernelPart != previous)
        return error(std::string("'") + what + "' out of order in kernel '" +
                     k.name + "' (expected block, shared, grid, param..., "
                     "end-kernel)");
      return Status::ok();
    };
    if (op == "block") {
      if (Status s = expectAfter(KpKernel, "block"); !s)
        return s;
      if (Status s = expectTokens(4, "block <x> <y> <z>"); !s)
        return s;
      int64_t threads = 1;
      for (int i = 0; i < 3; ++i) {
        if (!parseInt(tokens[1 + i], k.block[i]) || k.block[i] < 1 ||
            k.block[i] > 1024)
          return error("bad block size '" + std::string(tokens[1 + i]) +
                       "' (expected 1 to 1024)");
        threads *= k.block[i];
      }
      if (k.block[2] > 64)
        return error("block z = " + std::to_string(k.block[2]) +
                     " exceeds 64");
      if (threads > 1024)
        return error("block " + std::to_string(k.block[0]) + "x" +
                     std::to_string(k.block[1]) + "x" +
                     std::to_string(k.block[2]) + " has " +
                     std::to_string(threads) + " threads (at most 1024)");
      kernelPart = KpBlock;
      return Status::ok();
    }
    if (op == "shared") {
      if (Status s = expectAfter(KpBlock, "shared"); !s)
        return s;
      if (Status s = expectTokens(2, "shared <bytes>"); !s)
        return s;
      if (!parseInt(tokens[1], k.sharedBytes) || k.sharedBytes > INT_MAX)
        return error("bad shared memory size '" + std::string(tokens[1]) +
                     "'");
      kernelPart = KpShared;
      return Status::ok();
    }
    if (op == "grid") {
      if (Status s = expectAfter(KpShared, "grid"); !s)
        return s;
      if (Status s = expectTokens(4, "grid <x> <y> <z>"); !s)
        return s;
      for (int i = 0; i < 3; ++i)
        if (Status s = parseExpr(tokens[1 + i], k.grid[i]); !s)
          return s;
      kernelPart = KpGrid;
      return Status::ok();
    }
    if (op == "param") {
      if (kernelPart != KpGrid && kernelPart != KpParam)
        return error("'param' before 'grid' in kernel '" + k.name + "'");
      kernelPart = KpParam;
      return paramLine(k);
    }
    // end-kernel
    if (Status s = expectTokens(1, "end-kernel"); !s)
      return s;
    if (kernelPart != KpGrid && kernelPart != KpParam)
      return error("kernel '" + k.name +
                   "' ends before its block, shared and grid lines");
    kernelPart = KpNone;
    return Status::ok();
  }

  Status paramLine(KernelSpec &k) {
    if (tokens.size() < 2)
      return error("expected 'param arg|workspace|index ...'");
    ParamSpec p;
    int words = 0;
    if (tokens[1] == "arg") {
      if (Status s = expectTokens(3, "param arg <index>"); !s)
        return s;
      int64_t index;
      if (!parseInt(tokens[2], index) ||
          index >= static_cast<int64_t>(m.args.size()))
        return error("param arg '" + std::string(tokens[2]) +
                     "': no such argument (there are " +
                     std::to_string(m.args.size()) + ")");
      p.kind = ParamSpec::Kind::Arg;
      p.arg = static_cast<int>(index);
      words = 3 + 2 * m.args[p.arg].rank();
    } else if (tokens[1] == "workspace") {
      if (Status s = expectTokens(5, "param workspace <id> <dtype> <dims>");
          !s)
        return s;
      p.kind = ParamSpec::Kind::Workspace;
      for (size_t i = 0; i < m.workspaces.size(); ++i)
        if (m.workspaces[i].id == tokens[2])
          p.workspace = static_cast<int>(i);
      if (p.workspace < 0)
        return error("param workspace '" + std::string(tokens[2]) +
                     "': no such workspace");
      if (!parseDType(tokens[3], p.dtype))
        return error("unknown dtype '" + std::string(tokens[3]) + "'");
      for (std::string_view d : splitTopLevel(tokens[4])) {
        Expr e;
        if (Status s = parseExpr(d, e); !s)
          return s;
        p.dims.push_back(std::move(e));
      }
      if (p.dims.size() > static_cast<size_t>(kMaxRank))
        return error("workspace parameter of rank " +
                     std::to_string(p.dims.size()) + " (at most " +
                     std::to_string(kMaxRank) + ")");
      words = 3 + 2 * static_cast<int>(p.dims.size());
    } else if (tokens[1] == "index") {
      if (Status s = expectTokens(3, "param index <expr>"); !s)
        return s;
      p.kind = ParamSpec::Kind::Index;
      if (Status s = parseExpr(tokens[2], p.value); !s)
        return s;
      words = 1;
    } else {
      return error("unknown parameter kind '" + std::string(tokens[1]) +
                   "' (expected arg, workspace or index)");
    }
    if (k.numParamWords + words > kMaxKernelParams)
      return error("kernel '" + k.name + "' has more than " +
                   std::to_string(kMaxKernelParams) + " 64-bit parameters");
    k.numParamWords += words;
    k.params.push_back(std::move(p));
    return Status::ok();
  }

  Status finish() {
    if (kernelPart != KpNone)
      return globalError("kernel '" + m.kernels.back().name +
                         "' has no 'end-kernel'");
    if (!sawAbi)
      return globalError("empty manifest");
    if (m.chip.empty())
      return globalError("missing 'chip'");
    if (m.entry.empty())
      return globalError("missing 'entry'");
    if (m.args.empty())
      return globalError("no 'arg' lines");
    if (m.kernels.empty())
      return globalError("no kernel");
    m.cuSeqlensArg = m.argIndex("cu_seqlens");
    if (m.cuSeqlensArg >= 0) {
      const ArgSpec &a = m.args[m.cuSeqlensArg];
      if (a.role != ArgRole::Input || a.dtype != DType::I64 || a.rank() != 1)
        return globalError("argument 'cu_seqlens' must be an i64 input of "
                           "rank 1");
      if (m.symbolIndex("T") < 0)
        return globalError("cu_seqlens needs a dimension named T (the "
                           "packed token count it must end at)");
    }
    return Status::ok();
  }

  std::string_view text;
  int headerAbi;
  Manifest &m;
  int lineNo = 0;
  bool sawAbi = false;
  Stage current = StAbi;
  KernelPart kernelPart = KpNone;
  std::vector<std::string_view> tokens;
};

} // namespace

Status Manifest::parse(std::string_view text, int headerAbi, Manifest &out) {
  return ManifestParser(text, headerAbi, out).run();
}

} // namespace kda::rt
