//===- Expr.cpp - manifest size expressions -------------------------------===//

#include "kda/Runtime/Expr.h"

#include <cstdint>

namespace kda::rt {

const char *evalErrorName(EvalError error) {
  switch (error) {
  case EvalError::None:
    return "no error";
  case EvalError::DivisionByZero:
    return "division by zero";
  case EvalError::Overflow:
    return "64-bit overflow";
  case EvalError::BadDim:
    return "dim() out of range";
  }
  return "?";
}

/// Recursive-descent parser of one expression.
class ExprParser {
public:
  ExprParser(std::string_view text, Expr &out) : text(text), out(out) {}

  bool run(std::string &error) {
    out.nodes.clear();
    out.source = std::string(text);
    if (text.empty())
      return fail("empty expression", error);
    int root;
    if (!parseExpr(0, root) || pos != text.size()) {
      if (message.empty())
        message = "unexpected '" + std::string(text.substr(pos)) + "'";
      return fail(message, error);
    }
    out.root = root;
    // A constant divisor of 0 (div(x,0), rem(x,sub(1,1))) is an error now.
    for (const Expr::Node &n : out.nodes) {
      if (n.op != Expr::Op::Div && n.op != Expr::Op::CeilDiv &&
          n.op != Expr::Op::Rem)
        continue;
      if (!isConstant(n.rhs))
        continue;
      int64_t v;
      EvalError e = out.evalNode(n.rhs, nullptr, 0, v);
      if (e == EvalError::None && v == 0)
        return fail("division by zero", error);
    }
    int64_t v;
    if (out.isConstant() &&
        out.evalNode(out.root, nullptr, 0, v) != EvalError::None)
      return fail(evalErrorName(out.evalNode(out.root, nullptr, 0, v)),
                  error);
    return true;
  }

private:
  bool fail(const std::string &why, std::string &error) {
    error = "bad expression '" + std::string(text) + "': " + why;
    out.nodes.clear();
    out.root = -1;
    return false;
  }

  bool isConstant(int node) const {
    const Expr::Node &n = out.nodes[node];
    if (n.op == Expr::Op::Dim)
      return false;
    if (n.op == Expr::Op::Const)
      return true;
    return isConstant(n.lhs) && isConstant(n.rhs);
  }

  bool expect(char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    message = std::string("expected '") + c + "' at offset " +
              std::to_string(pos);
    return false;
  }

  bool parseNumber(int64_t &value) {
    size_t start = pos;
    uint64_t v = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      uint64_t digit = static_cast<uint64_t>(text[pos] - '0');
      if (v > (static_cast<uint64_t>(INT64_MAX) - digit) / 10) {
        message = "number too large";
        return false;
      }
      v = v * 10 + digit;
      ++pos;
    }
    if (pos == start) {
      message = "expected a number or a function at offset " +
                std::to_string(pos);
      return false;
    }
    value = static_cast<int64_t>(v);
    return true;
  }

  bool parseExpr(int depth, int &node) {
    if (depth >= Expr::kMaxDepth) {
      message = "nested deeper than " + std::to_string(Expr::kMaxDepth);
      return false;
    }
    if (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      Expr::Node n;
      n.op = Expr::Op::Const;
      if (!parseNumber(n.value))
        return false;
      node = add(n);
      return true;
    }
    size_t start = pos;
    while (pos < text.size() && text[pos] >= 'a' && text[pos] <= 'z')
      ++pos;
    std::string_view name = text.substr(start, pos - start);
    if (name.empty()) {
      message = "expected a number or a function at offset " +
                std::to_string(start);
      return false;
    }
    Expr::Node n;
    if (name == "dim") {
      n.op = Expr::Op::Dim;
      int64_t arg, dim;
      if (!expect('(') || !parseNumber(arg) || !expect(',') ||
          !parseNumber(dim) || !expect(')'))
        return false;
      if (arg > 1000000 || dim > 1000000) {
        message = "dim() index too large";
        return false;
      }
      n.value = arg;
      n.dim = static_cast<int>(dim);
      node = add(n);
      return true;
    }
    static const struct {
      const char *name;
      Expr::Op op;
    } binaries[] = {{"add", Expr::Op::Add},         {"sub", Expr::Op::Sub},
                    {"mul", Expr::Op::Mul},         {"div", Expr::Op::Div},
                    {"ceildiv", Expr::Op::CeilDiv}, {"rem", Expr::Op::Rem},
                    {"min", Expr::Op::Min},         {"max", Expr::Op::Max}};
    bool known = false;
    for (const auto &b : binaries)
      if (name == b.name) {
        n.op = b.op;
        known = true;
      }
    if (!known) {
      message = "unknown function '" + std::string(name) + "'";
      return false;
    }
    if (!expect('(') || !parseExpr(depth + 1, n.lhs) || !expect(',') ||
        !parseExpr(depth + 1, n.rhs) || !expect(')'))
      return false;
    node = add(n);
    return true;
  }

  int add(const Expr::Node &n) {
    out.nodes.push_back(n);
    return static_cast<int>(out.nodes.size()) - 1;
  }

  std::string_view text;
  Expr &out;
  size_t pos = 0;
  std::string message;
};

bool Expr::parse(std::string_view text, Expr &out, std::string &error) {
  return ExprParser(text, out).run(error);
}

bool Expr::isConstant() const {
  for (const Node &n : nodes)
    if (n.op == Op::Dim)
      return false;
  return true;
}

int Expr::maxArgIndex() const {
  int m = -1;
  for (const Node &n : nodes)
    if (n.op == Op::Dim && n.value > m)
      m = static_cast<int>(n.value);
  return m;
}

EvalError Expr::eval(const TensorArg *args, size_t numArgs,
                     int64_t &out) const {
  if (root < 0)
    return EvalError::BadDim;
  return evalNode(root, args, numArgs, out);
}

EvalError Expr::evalNode(int index, const TensorArg *args, size_t numArgs,
                         int64_t &out) const {
  const Node &n = nodes[index];
  if (n.op == Op::Const) {
    out = n.value;
    return EvalError::None;
  }
  if (n.op == Op::Dim) {
    if (!args || n.value < 0 || static_cast<size_t>(n.value) >= numArgs)
      return EvalError::BadDim;
    const TensorArg &t = args[n.value];
    if (n.dim < 0 || n.dim >= t.rank || n.dim >= kMaxRank)
      return EvalError::BadDim;
    out = t.dims[n.dim];
    return EvalError::None;
  }
  int64_t a, b;
  EvalError e = evalNode(n.lhs, args, numArgs, a);
  if (e != EvalError::None)
    return e;
  e = evalNode(n.rhs, args, numArgs, b);
  if (e != EvalError::None)
    return e;
  // div, ceildiv and rem are unsigned, as in the bundle format.
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (n.op) {
  case Op::Add:
    return __builtin_add_overflow(a, b, &out) ? EvalError::Overflow
                                              : EvalError::None;
  case Op::Sub:
    return __builtin_sub_overflow(a, b, &out) ? EvalError::Overflow
                                              : EvalError::None;
  case Op::Mul:
    return __builtin_mul_overflow(a, b, &out) ? EvalError::Overflow
                                              : EvalError::None;
  case Op::Div:
    if (ub == 0)
      return EvalError::DivisionByZero;
    out = static_cast<int64_t>(ua / ub);
    return EvalError::None;
  case Op::CeilDiv:
    if (ub == 0)
      return EvalError::DivisionByZero;
    out = static_cast<int64_t>(ua / ub + (ua % ub != 0 ? 1 : 0));
    return EvalError::None;
  case Op::Rem:
    if (ub == 0)
      return EvalError::DivisionByZero;
    out = static_cast<int64_t>(ua % ub);
    return EvalError::None;
  case Op::Min:
    out = a < b ? a : b;
    return EvalError::None;
  case Op::Max:
    out = a > b ? a : b;
    return EvalError::None;
  case Op::Const:
  case Op::Dim:
    break;
  }
  return EvalError::BadDim;
}

} // namespace kda::rt
