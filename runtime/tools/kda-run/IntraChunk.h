//===- IntraChunk.h - what intra_diag and inter_solve share ------*- C++ -*-===//
//
// kda.intra_diag and kda.inter_solve are the two halves of fla's
// chunk_kda_fwd_intra. Both take q, k [B,T,H,K] (the I/O dtype), G
// [B,T,HV,K] f32, beta [B,T,HV] and optional cu_seqlens, read the keys K,
// chunk, scale and safe_gate, and work on 16-row sub-chunks.
// IntraChunkRunner binds those inputs, sizes the arguments, draws the inputs
// the way fla's tests do (drawChunkStageInputs) and gathers one pair's rows
// for the reference; each stage adds its own outputs and comparisons.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUN_INTRACHUNK_H
#define KDA_RUN_INTRACHUNK_H

#include "Setup.h"
#include "StageRunner.h"

namespace kda::run {

/// The runner of kda.intra_diag or kda.inter_solve, less the outputs.
class IntraChunkRunner : public StageRunner {
public:
  /// q, k, G and beta, the first arguments of both stages.
  enum InputArg { Q, Kk, Gc, Beta, NumInputArgs };

protected:
  /// The rows of one (sequence, value head) pair's inputs.
  struct PairInputs {
    std::vector<double> q, k, G, beta;
  };

  /// Binds q, k, G, beta and then the stage's arguments `stageRules`
  /// (bindArguments) and checks --dtype and the flags against the bundle;
  /// reads K, the chunk size (key chunk, else the static last dimension of
  /// the stage's argument `chunkArg`, Aqk), scale and safe_gate.
  bool bindInputs(const rt::Manifest &m, const char *program,
                  const std::vector<StageArg> &stageRules, int chunkArg,
                  std::string &error);
  /// The varlen rules, the shape of every argument (symbols B, T, H, HV, K,
  /// BT and BC), which must be the one its name has in the table of stage
  /// tensors (checkShapes), and the pairs to compare.
  bool sizeStage(const rt::Manifest &m, const char *program,
                 std::string &error);
  /// The header text, with `keys` (" precision=tf32") after safe_gate.
  std::string describeStage(const rt::Manifest &m,
                            const std::string &keys) const;
  /// Draws q, k, G and beta like fla's tests (drawChunkStageInputs).
  void makeInputs(Tensors &args) override;
  /// The reference problem of `len` rows of one pair.
  ref::Problem subProblem(int64_t len) const;
  /// Rows [begin, begin + len) of value head `head`: its q and k (those of
  /// its q/k head), G and beta.
  PairInputs gatherInputs(const Tensors &args, int64_t begin, int64_t len,
                          int64_t head) const;
  /// The rms ratio accepted for an output in the I/O dtype whose f32
  /// computation alone is accurate to `computed`: the larger of the two.
  double ioThreshold(double computed) const;

  float scale = 0;
  bool safeGate = false;
  /// The I/O dtype (q's).
  rt::DType io = rt::DType::F32;
};

} // namespace kda::run

#endif // KDA_RUN_INTRACHUNK_H
