//===- Options.cpp - command line of kda-run ------------------------------===//

#include "Options.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

namespace kda::run {

const char *usage() {
  return "usage: kda-run BUNDLE --batch N --seq-len T --heads H --value-heads HV\n"
         "               [--cu-seqlens 0,a,b,...] [--seed S] [--dtype bf16|f16|f32]\n"
         "               [--mask-p P] [--gate-norm X]\n"
         "               [--cpu] [--bench] [--bench-kernels] [--no-check]\n"
         "               [--check-heads N]\n"
         "               [--inject-error] [--inputs DIR] [--outputs DIR]\n"
         "\n"
         "Runs a kernel bundle on inputs made like fla's tests (or read from\n"
         "DIR/<arg>.npy), compares every output with the float64 reference,\n"
         "prints a table and a last line starting with PASS or FAIL.\n"
         "  --batch N          batch size B (1 with --cu-seqlens)\n"
         "  --seq-len T        tokens per sequence (packed total with --cu-seqlens)\n"
         "  --heads H          q/k heads; must divide --value-heads\n"
         "  --value-heads HV   value heads; must match the bundle\n"
         "  --cu-seqlens LIST  packed sequence offsets 0,...,T (varlen bundles)\n"
         "  --seed S           random seed (default 0)\n"
         "  --dtype D          expected input dtype; must match the bundle\n"
         "  --mask-p P         set a fraction P of the precomputed gates to -1000\n"
         "                     (default 0)\n"
         "  --gate-norm X      divide the precomputed gates logsigmoid(randn) by X\n"
         "                     (default 1)\n"
         "  --cpu              run the bundle's CPU build instead of the GPU\n"
         "  --bench            time >= 50 runs (CUDA events) and report GB/s\n"
         "  --bench-kernels    --bench, then time each kernel alone the same\n"
         "                     way (GPU only; the workspace holds the earlier\n"
         "                     kernels' results)\n"
         "  --no-check         skip the reference (outputs are still checked\n"
         "                     for NaN/Inf and unwritten elements)\n"
         "  --check-heads N    check N random (sequence, head) pairs only\n"
         "  --inject-error     add 1.0 to one checked output element before the\n"
         "                     check (proves that the check catches it)\n"
         "  --inputs DIR       read inputs from DIR/<arg>.npy\n"
         "  --outputs DIR      write every argument to DIR/<arg>.npy\n";
}

namespace {

bool parseInt(const std::string &s, int64_t &out) {
  if (s.empty() || s.size() > 18)
    return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size())
    return false;
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    v = v * 10 + (s[i] - '0');
  }
  out = s[0] == '-' ? -v : v;
  return true;
}

bool parseDouble(const std::string &s, double &out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0])))
    return false;
  char *end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return *end == '\0' && std::isfinite(out);
}

} // namespace

bool parseOptions(int argc, char **argv, Options &o, std::string &error) {
  std::set<std::string> seen;
  bool haveBatch = false, haveSeqLen = false, haveHeads = false,
       haveValueHeads = false, haveCheckHeads = false;
  // The flags that take a positive integer, and whether each was given.
  struct PositiveFlag {
    const char *name;
    int64_t *value;
    bool *given;
  };
  const PositiveFlag positiveFlags[] = {
      {"--batch", &o.batch, &haveBatch},
      {"--seq-len", &o.seqLen, &haveSeqLen},
      {"--heads", &o.heads, &haveHeads},
      {"--value-heads", &o.valueHeads, &haveValueHeads},
      {"--check-heads", &o.checkHeads, &haveCheckHeads}};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      o.help = true;
      return true;
    }
    if (arg.size() < 2 || arg.compare(0, 2, "--") != 0) {
      if (!o.bundle.empty()) {
        error = "unexpected argument '" + arg + "' (one bundle only)";
        return false;
      }
      o.bundle = arg;
      continue;
    }
    std::string name = arg, value;
    bool inlineValue = false;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inlineValue = true;
    }
    static const char *const valueFlags[] = {
        "--batch",  "--seq-len", "--heads",       "--value-heads",
        "--cu-seqlens", "--seed", "--dtype",  "--mask-p",
        "--gate-norm",  "--check-heads", "--inputs", "--outputs"};
    static const char *const boolFlags[] = {"--cpu", "--bench",
                                            "--bench-kernels", "--no-check",
                                            "--inject-error"};
    bool takesValue = false, known = false;
    for (const char *f : valueFlags)
      if (name == f)
        known = takesValue = true;
    for (const char *f : boolFlags)
      if (name == f)
        known = true;
    if (!known) {
      error = "unknown flag '" + name + "' (see --help)";
      return false;
    }
    if (!seen.insert(name).second) {
      error = name + " given twice";
      return false;
    }
    if (!takesValue) {
      if (inlineValue) {
        error = name + " takes no value";
        return false;
      }
      if (name == "--cpu")
        o.cpu = true;
      else if (name == "--bench")
        o.bench = true;
      else if (name == "--bench-kernels")
        o.bench = o.benchKernels = true;
      else if (name == "--no-check")
        o.noCheck = true;
      else
        o.injectError = true;
      continue;
    }
    if (!inlineValue) {
      if (i + 1 >= argc) {
        error = name + " needs a value";
        return false;
      }
      value = argv[++i];
    }
    const PositiveFlag *positive = nullptr;
    for (const PositiveFlag &flag : positiveFlags)
      if (name == flag.name)
        positive = &flag;
    if (positive) {
      int64_t v;
      if (!parseInt(value, v) || v < 1) {
        error = name + " expects a positive integer, got '" + value + "'";
        return false;
      }
      *positive->value = v;
      *positive->given = true;
    } else if (name == "--seed") {
      int64_t v;
      if (!parseInt(value, v) || v < 0) {
        error = "--seed expects a non-negative integer, got '" + value + "'";
        return false;
      }
      o.seed = static_cast<uint64_t>(v);
    } else if (name == "--cu-seqlens") {
      o.cuSeqlensText = value;
      size_t start = 0;
      while (true) {
        size_t comma = value.find(',', start);
        std::string part = value.substr(
            start, comma == std::string::npos ? std::string::npos
                                              : comma - start);
        int64_t v;
        if (!parseInt(part, v)) {
          error = "--cu-seqlens must be a comma-separated list of integers, "
                  "got '" +
                  value + "'";
          return false;
        }
        o.cuSeqlens.push_back(v);
        if (comma == std::string::npos)
          break;
        start = comma + 1;
      }
    } else if (name == "--dtype") {
      if (value != "bf16" && value != "f16" && value != "f32") {
        error = "--dtype must be bf16, f16 or f32, got '" + value + "'";
        return false;
      }
      o.dtype = value;
    } else if (name == "--mask-p") {
      if (!parseDouble(value, o.maskP) || o.maskP < 0 || o.maskP > 1) {
        error = "--mask-p expects a probability in [0, 1], got '" + value + "'";
        return false;
      }
    } else if (name == "--gate-norm") {
      if (!parseDouble(value, o.gateNorm) || o.gateNorm <= 0) {
        error = "--gate-norm expects a positive number, got '" + value + "'";
        return false;
      }
    } else if (name == "--inputs") {
      o.inputsDir = value;
    } else if (name == "--outputs") {
      o.outputsDir = value;
    }
  }
  if (o.bundle.empty()) {
    error = "no bundle given (usage: kda-run BUNDLE --batch N --seq-len T "
            "--heads H --value-heads HV ...)";
    return false;
  }
  const char *missing = !haveBatch        ? "--batch"
                        : !haveSeqLen     ? "--seq-len"
                        : !haveHeads      ? "--heads"
                        : !haveValueHeads ? "--value-heads"
                                          : nullptr;
  if (missing) {
    error = std::string(missing) + " is required";
    return false;
  }
  if (o.noCheck && o.checkHeads) {
    error = "--no-check and --check-heads exclude each other";
    return false;
  }
  if (o.noCheck && o.injectError) {
    error = "--no-check and --inject-error exclude each other";
    return false;
  }
  if (o.cpu && o.benchKernels) {
    error = "--bench-kernels times GPU kernels; it does not go with --cpu";
    return false;
  }
  return true;
}

} // namespace kda::run
