//===- CpuRun.h - shared pieces of kda-cpu-run ------------------*- C++ -*-===//
//
// What every program checker of kda-cpu-run uses: the command-line options,
// the problem setup from them, JIT compilation and invocation of the CPU
// pipeline's output, and the report table.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_TOOLS_KDACPURUN_CPURUN_H
#define KDA_TOOLS_KDACPURUN_CPURUN_H

#include "HostTensor.h"

#include "kda/Dialect/KDA/KDAOps.h"
#include "kda/Reference/Metric.h"
#include "kda/Reference/Problem.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace kda {

/// The command-line options of kda-cpu-run.
struct RunOptions {
  std::string inputFile;
  int64_t batch = 1;
  int64_t seqLen = 128;
  /// Whether --cu-seqlens was given, and its text.
  bool hasCuSeqlens = false;
  std::string cuSeqlens;
  uint64_t seed = 0;
  double maskP = 0.0;
  double gateNorm = 1.0;
  bool injectError = false;
};

/// Prints "kda-cpu-run: error: <message>" and returns a non-zero exit code.
int fail(const llvm::Twine &message);

/// Sets problem.B, problem.T and problem.cuSeqlens from the options, checked
/// against the static shape of `rows` (a [B, T, ...] operand named `name`)
/// and against whether the program is varlen. Returns 0, or the exit code
/// after printing the error.
int setupTokens(const RunOptions &options, mlir::RankedTensorType rows,
                llvm::StringRef name, bool programIsVarlen,
                ref::Problem &problem);

/// Checks the complete problem (reference rules) and that no tensor of
/// `dims` elements (named `what`, e.g. "B*T*HV*K") exceeds the CPU path's
/// limit of 2^31 elements. Returns 0, or the exit code after printing.
int checkProblem(const ref::Problem &problem, llvm::StringRef what,
                 llvm::ArrayRef<int64_t> dims);

/// Lowers `module` with the CPU pipeline (after dropping every other kda
/// function than `entry`), JIT-compiles it and calls `entry` with `tensors`
/// (the host function's arguments in order). Returns 0 or an exit code.
int compileAndRun(mlir::ModuleOp module, mlir::func::FuncOp entry,
                  const RunOptions &options,
                  const std::vector<HostTensor *> &tensors);

/// The check of one output.
struct OutputCheck {
  std::string name;
  /// Number of compared elements.
  int64_t elements = 0;
  ref::ErrorStats stats;
  /// Compared elements left NaN (the outputs start as NaN) where the
  /// reference is finite.
  int64_t unwritten = 0;
  /// Largest accepted rms ratio.
  double threshold = 0.0;

  bool ok() const {
    return unwritten == 0 && stats.finite && stats.relRms <= threshold;
  }
};

/// Compares out[i] with ref[i] at the positions `*where`, or at every
/// position when `where` is null.
OutputCheck compareOutput(llvm::StringRef name, const std::vector<double> &out,
                          const std::vector<double> &ref,
                          const std::vector<int64_t> *where, double threshold);

/// Prints the table of `checks` and the last line (PASS or FAIL with the
/// worst rms ratio and max abs error); returns the exit code.
int report(const std::vector<OutputCheck> &checks);

/// Returns the index of the argument of `entry` that `value` is, or -1.
int argumentIndex(mlir::func::FuncOp entry, mlir::Value value);

/// kda.gate_cumsum programs.
int runGateCumsum(mlir::ModuleOp module, mlir::func::FuncOp entry,
                  mlir::kda::GateCumsumOp op, const RunOptions &options);

/// kda.inter_solve programs.
int runInterSolve(mlir::ModuleOp module, mlir::func::FuncOp entry,
                  mlir::kda::InterSolveOp op, const RunOptions &options);

} // namespace kda

#endif // KDA_TOOLS_KDACPURUN_CPURUN_H
