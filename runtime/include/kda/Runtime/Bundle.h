//===- Bundle.h - kernel bundles (.kdab) and their manifest ------*- C++ -*-===//
//
// The container (header line, sections, end line) and the text manifest of a
// kernel bundle, ABI version 1, as described in docs/bundle-format.md. Parsing
// checks everything that can be checked without sizes: statement order,
// argument indices, dtypes, dimensions, expressions, parameter references and
// the fixed capacities of the launch path.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUNTIME_BUNDLE_H
#define KDA_RUNTIME_BUNDLE_H

#include "kda/Runtime/Expr.h"
#include "kda/Runtime/Status.h"
#include "kda/Runtime/Types.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kda::rt {

/// Whether an entry argument is read or written.
enum class ArgRole { Input, Output };

/// One dimension of an argument: a static size or a symbol.
struct DimSpec {
  /// The static size, or -1 for a symbol.
  int64_t size = -1;
  /// Index into Manifest::symbols, or -1 for a static size.
  int symbol = -1;
  bool isStatic() const { return symbol < 0; }
};

/// A manifest `arg` line.
struct ArgSpec {
  int index = 0;
  std::string name;
  ArgRole role = ArgRole::Input;
  DType dtype = DType::F32;
  std::vector<DimSpec> dims;
  /// The dims as written ("1,T,4,128").
  std::string dimsText;
  int rank() const { return static_cast<int>(dims.size()); }
};

/// A manifest `workspace` line.
struct WorkspaceSpec {
  std::string id;
  Expr bytes;
};

/// A manifest `param` line.
struct ParamSpec {
  enum class Kind { Arg, Workspace, Index };
  Kind kind = Kind::Index;
  /// Kind::Arg: the entry argument index.
  int arg = -1;
  /// Kind::Workspace: index into Manifest::workspaces, dtype and dims.
  int workspace = -1;
  DType dtype = DType::F32;
  std::vector<Expr> dims;
  /// Kind::Index: the value.
  Expr value;
};

/// A manifest `kernel` ... `end-kernel` block.
struct KernelSpec {
  std::string name;
  int64_t block[3] = {1, 1, 1};
  int64_t sharedBytes = 0;
  Expr grid[3];
  std::vector<ParamSpec> params;
  /// Number of 64-bit kernel parameters the params expand to.
  int numParamWords = 0;
  /// Manifest line of the `kernel` statement.
  int line = 0;
};

/// The parsed manifest.
struct Manifest {
  int abi = 0;
  std::string chip;
  /// Compute capability of `chip` (sm_90a: 9, 0, archSpecific).
  int chipMajor = 0, chipMinor = 0;
  /// True for arch-specific targets (sm_90a), which run on that chip only.
  bool chipArchSpecific = false;
  std::string entry;
  /// The `key` pairs in order.
  std::vector<std::pair<std::string, std::string>> keys;
  std::vector<ArgSpec> args;
  /// Symbols used by argument dims, in order of first use.
  std::vector<std::string> symbols;
  std::vector<WorkspaceSpec> workspaces;
  std::vector<KernelSpec> kernels;
  /// Number of input arguments (they come first).
  int numInputs = 0;
  /// Index of the argument named cu_seqlens, or -1.
  int cuSeqlensArg = -1;

  /// The value of key `name`, or null.
  const std::string *key(std::string_view name) const;
  /// Index of the argument named `name`, or -1.
  int argIndex(std::string_view name) const;
  /// Index of symbol `name`, or -1.
  int symbolIndex(std::string_view name) const;

  /// Parses manifest text. `headerAbi` is the ABI version of the container
  /// header, which the manifest's `abi` line must repeat.
  static Status parse(std::string_view text, int headerAbi, Manifest &out);
};

/// A loaded bundle.
struct Bundle {
  /// ABI version from the header line.
  int abi = 0;
  Manifest manifest;
  /// The PTX of every kernel (required).
  std::string ptx;
  /// The module assembled for the manifest's chip (optional).
  std::string cubin;
  bool hasCubin = false;
  /// The CPU build, an x86-64 ELF shared object (optional).
  std::string cpu;
  bool hasCpu = false;
  /// Names of all sections, in order, unknown ones included.
  std::vector<std::string> sections;
  /// Whether a `checksums` section covered every other section (verified
  /// by parse); a bundle without one is loaded unverified.
  bool checksummed = false;

  /// Parses a whole bundle file image. Also checks that every manifest
  /// kernel is an entry of the PTX with as many 64-bit parameters as the
  /// manifest passes.
  static Status parse(std::string_view data, Bundle &out);
  /// Reads and parses the file at `path`; messages start with the path.
  static Status readFile(const std::string &path, Bundle &out);
};

/// Checks that every kernel of `manifest` is an `.entry` of `ptx` declaring
/// exactly numParamWords 64-bit parameters.
Status checkPtxEntries(std::string_view ptx, const Manifest &manifest);

} // namespace kda::rt

#endif // KDA_RUNTIME_BUNDLE_H
