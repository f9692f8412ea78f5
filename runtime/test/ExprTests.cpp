//===- ExprTests.cpp - manifest expressions -------------------------------===//

#include "Tests.h"

#include "kda/Runtime/Expr.h"

namespace kda::rt::test {

namespace {

void expectValue(Harness &h, const std::string &text, const TensorArg *args,
                 size_t n, int64_t expected) {
  Expr e;
  std::string why;
  if (!Expr::parse(text, e, why)) {
    h.record("expr/" + text, false, why);
    return;
  }
  int64_t v = 0;
  EvalError err = e.eval(args, n, v);
  h.record("expr/" + text, err == EvalError::None && v == expected,
           std::to_string(v) + " (" + evalErrorName(err) + ")");
}

void expectParseError(Harness &h, const std::string &name,
                      const std::string &text, const std::string &needle) {
  Expr e;
  std::string why;
  bool ok = Expr::parse(text, e, why);
  h.record("expr-error/" + name,
           !ok && why.find(needle) != std::string::npos,
           ok ? "parsed" : why);
}

void expectEvalError(Harness &h, const std::string &text,
                     const TensorArg *args, size_t n, EvalError expected) {
  Expr e;
  std::string why;
  if (!Expr::parse(text, e, why)) {
    h.record("expr-eval-error/" + text, false, why);
    return;
  }
  int64_t v = 0;
  EvalError err = e.eval(args, n, v);
  h.record("expr-eval-error/" + text, err == expected, evalErrorName(err));
}

} // namespace

void runExprTests(Harness &h) {
  TensorArg args[2];
  args[0] = TensorArg::make(nullptr, DType::F32, {3, 300, 4, 128});
  args[1] = TensorArg::make(nullptr, DType::I64, {0});
  expectValue(h, "123", args, 2, 123);
  expectValue(h, "dim(0,1)", args, 2, 300);
  expectValue(h, "add(dim(0,1),5)", args, 2, 305);
  expectValue(h, "sub(4,9)", args, 2, -5);
  expectValue(h, "mul(dim(0,0),dim(0,2))", args, 2, 12);
  expectValue(h, "div(dim(0,1),64)", args, 2, 4);
  expectValue(h, "ceildiv(dim(0,1),64)", args, 2, 5);
  expectValue(h, "ceildiv(256,64)", args, 2, 4);
  expectValue(h, "rem(dim(0,1),64)", args, 2, 44);
  expectValue(h, "min(sub(0,3),2)", args, 2, -3);
  expectValue(h, "max(sub(0,3),2)", args, 2, 2);
  expectValue(h, "add(div(dim(0,1),64),sub(dim(0,0),1))", args, 2, 6);
  // div is unsigned: -1 / 2 is (2^64 - 1) / 2.
  expectValue(h, "div(sub(0,1),2)", args, 2, INT64_MAX);
  expectValue(h, "9223372036854775807", args, 2, INT64_MAX);

  expectParseError(h, "empty", "", "empty expression");
  expectParseError(h, "unknown-function", "pow(2,3)", "unknown function 'pow'");
  expectParseError(h, "one-operand", "add(1)", "expected ','");
  expectParseError(h, "unclosed", "add(1,2", "expected ')'");
  expectParseError(h, "trailing", "add(1,2))", "unexpected ')'");
  expectParseError(h, "space", "add(1, 2)", "expected a number or a function");
  expectParseError(h, "negative-literal", "-3", "expected a number");
  expectParseError(h, "too-large", "99999999999999999999", "number too large");
  expectParseError(h, "dim-expression", "dim(add(0,0),1)", "expected a number");
  expectParseError(h, "div-by-constant-zero", "div(dim(0,1),0)",
                   "division by zero");
  expectParseError(h, "ceildiv-by-constant-zero", "ceildiv(7,sub(3,3))",
                   "division by zero");
  expectParseError(h, "rem-by-constant-zero", "rem(7,0)", "division by zero");
  expectParseError(h, "constant-overflow", "mul(9223372036854775807,2)",
                   "64-bit overflow");
  std::string deep = "1";
  for (int i = 0; i < 40; ++i)
    deep = "add(" + deep + ",1)";
  expectParseError(h, "too-deep", deep, "nested deeper than 32");

  expectEvalError(h, "div(64,dim(1,0))", args, 2, EvalError::DivisionByZero);
  expectEvalError(h, "rem(64,dim(1,0))", args, 2, EvalError::DivisionByZero);
  expectEvalError(h, "mul(dim(0,1),4611686018427387904)", args, 2,
                  EvalError::Overflow);
  expectEvalError(h, "dim(5,0)", args, 2, EvalError::BadDim);
  expectEvalError(h, "dim(0,4)", args, 2, EvalError::BadDim);
}

} // namespace kda::rt::test
