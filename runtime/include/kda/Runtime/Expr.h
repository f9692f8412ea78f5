//===- Expr.h - manifest size expressions ------------------------*- C++ -*-===//
//
// The expressions of bundle manifests (grids, workspace sizes, parameters):
// decimal literals, dim(a,d), and add/sub/mul/div/ceildiv/rem/min/max of two
// expressions. Parsed once when the bundle is loaded; evaluated on the launch
// path without allocating.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUNTIME_EXPR_H
#define KDA_RUNTIME_EXPR_H

#include "kda/Runtime/Types.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kda::rt {

/// Why an evaluation failed.
enum class EvalError { None, DivisionByZero, Overflow, BadDim };

/// "division by zero", "64-bit overflow", ...
const char *evalErrorName(EvalError error);

/// A parsed expression.
class Expr {
public:
  /// Node kinds.
  enum class Op : uint8_t {
    Const, Dim, Add, Sub, Mul, Div, CeilDiv, Rem, Min, Max,
  };

  /// Maximum nesting depth accepted by parse.
  static constexpr int kMaxDepth = 32;

  /// Parses `text` (no spaces). On failure returns false and sets `error` to
  /// a message naming the problem. A division whose divisor is a constant 0
  /// is rejected here.
  static bool parse(std::string_view text, Expr &out, std::string &error);

  /// Evaluates with `dim(a,d)` read from args[a].dims[d]; `numArgs` bounds a.
  EvalError eval(const TensorArg *args, size_t numArgs, int64_t &out) const;

  /// Largest argument index used by dim(), or -1.
  int maxArgIndex() const;
  /// Calls fn(arg, dim) for every dim() reference.
  template <typename Fn> void forEachDim(Fn fn) const {
    for (const Node &n : nodes)
      if (n.op == Op::Dim)
        fn(static_cast<int>(n.value), n.dim);
  }
  /// True when no dim() appears.
  bool isConstant() const;
  /// The source text.
  const std::string &text() const { return source; }
  /// True when parsed.
  bool valid() const { return !nodes.empty(); }

private:
  struct Node {
    Op op = Op::Const;
    /// Literal value, or the argument index of dim().
    int64_t value = 0;
    /// Dimension index of dim().
    int dim = 0;
    /// Operand node indices of binary ops.
    int lhs = -1, rhs = -1;
  };
  EvalError evalNode(int node, const TensorArg *args, size_t numArgs,
                     int64_t &out) const;
  friend class ExprParser;

  std::vector<Node> nodes;
  int root = -1;
  std::string source;
};

} // namespace kda::rt

#endif // KDA_RUNTIME_EXPR_H
