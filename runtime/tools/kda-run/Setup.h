//===- Setup.h - checks of the command line against a bundle -----*- C++
//-*-===//
//
// What the program runners share when they fix a problem from the flags and
// the manifest: key values, static dimensions, --dtype, the head groups, the
// varlen rules, the shape of every argument, and the size limits of the host
// tensors.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUN_SETUP_H
#define KDA_RUN_SETUP_H

#include "Options.h"

#include "kda/Runtime/Bundle.h"

#include <map>
#include <string>
#include <vector>

namespace kda::run {

/// Parses a decimal integer (a key's value); false when `value` is null,
/// empty or not an integer.
bool parseKeyInt(const std::string *value, int64_t &out);

/// Whether `text` is a whole decimal number (one that strtod reads to its
/// end); false when it is empty.
bool isNumber(const std::string &text);

/// The size of the last dimension of argument `name`: its static size, else
/// the value of key `key` ("the bundle fixes no K (neither a static last
/// dimension of 'q' nor a key K=...)" when neither is there).
bool bindLastDim(const rt::Manifest &m, const char *name, const char *key,
                 int64_t &out, std::string &error);

/// The --dtype rule: when given, --dtype must name `dtype`, the bundle's
/// `what` ("--dtype f16 does not match the bundle's input dtype bf16
/// (argument 'q')"; the argument part only when `argument` is not empty).
bool checkDtypeFlag(const Options &options, rt::DType dtype, const char *what,
                    const std::string &argument, std::string &error);

/// H divides HV ("--heads 3 does not divide --value-heads 4").
bool checkHeadGroups(int64_t H, int64_t HV, std::string &error);

/// When dimension `dim` of `arg` is static, checks that it equals `flag`
/// (the value of `flagName`, which sets `what`): "--batch 2 does not match
/// the bundle's static batch size 1".
bool checkStaticDim(const rt::ArgSpec &arg, int dim, int64_t flag,
                    const char *flagName, const char *what, std::string &error);

/// The varlen rules: --cu-seqlens exactly when the bundle takes cu_seqlens,
/// then B = 1 and offsets that start at 0, never decrease and end at T.
bool checkCuSeqlens(const Options &options, const rt::Manifest &manifest,
                    int64_t B, int64_t T, std::string &error);

/// The shape of every manifest argument: static sizes as they are, symbols
/// from `symbols` (N1 is the number of --cu-seqlens offsets).
bool sizeArguments(const rt::Manifest &manifest,
                   const std::map<std::string, int64_t> &symbols,
                   size_t numCuSeqlens,
                   std::vector<std::vector<int64_t>> &shapes,
                   std::string &error);

/// Checks that every argument's element count fits in 64 bits and, for the
/// CPU build (`cpu`), stays below 2^31 elements (the CPU build is for small
/// problems), before anything is allocated.
bool checkSizes(const rt::Manifest &manifest,
                const std::vector<std::vector<int64_t>> &shapes, bool cpu,
                std::string &error);

/// How one manifest argument of a stage is checked.
struct StageArg {
  /// Manifest name.
  const char *name;
  /// True for outputs.
  bool output;
  /// The rank it must have.
  int rank;
  /// Required dtype: "f32", "float" (any of f32, f16, bf16), or the name of
  /// another argument whose dtype it must share.
  const char *dtype;
};

/// Whether `t` is one of the float dtypes (f32, f16, bf16).
bool isFloat(rt::DType t);

/// Finds every argument of `args` in the manifest (`index[a]`, -1 for an
/// absent output) and checks its role, rank and dtype: every input must be
/// present and at least one output. `program` names the program in
/// messages.
bool bindArguments(const rt::Manifest &m, const char *program,
                   const std::vector<StageArg> &args, std::vector<int> &index,
                   std::string &error);

/// The flags --batch, --seq-len, --heads and --value-heads against a
/// stage's `qk` ([B, T, H, ...]) and `valueHeads` ([B, T, HV, ...])
/// arguments (static dimensions) and the bundle's H and HV keys, and
/// HV % H == 0.
bool bindBatchAndHeads(const Options &options, const rt::Manifest &m,
                       const rt::ArgSpec &qk, const rt::ArgSpec &valueHeads,
                       std::string &error);

/// " mask_p=P gate_norm=X seed=S" for the header line of a runner (mask_p
/// and gate_norm only when they differ from their defaults).
std::string inputOptionsText(const Options &options);

} // namespace kda::run

#endif // KDA_RUN_SETUP_H
