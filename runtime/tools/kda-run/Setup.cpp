//===- Setup.cpp - checks of the command line against a bundle ------------===//

#include "Setup.h"

#include <cstdio>

#include <algorithm>
#include <cstdlib>

namespace kda::run {

bool parseKeyInt(const std::string *value, int64_t &out) {
  if (!value || value->empty())
    return false;
  char *end = nullptr;
  long long x = std::strtoll(value->c_str(), &end, 10);
  if (*end)
    return false;
  out = x;
  return true;
}

bool isNumber(const std::string &text) {
  char *end = nullptr;
  (void)std::strtod(text.c_str(), &end);
  return !text.empty() && !*end;
}

bool bindLastDim(const rt::Manifest &m, const char *name, const char *key,
                 int64_t &out, std::string &error) {
  const rt::DimSpec &d = m.args[m.argIndex(name)].dims.back();
  if (d.isStatic()) {
    out = d.size;
    return true;
  }
  if (parseKeyInt(m.key(key), out))
    return true;
  error = std::string("the bundle fixes no ") + key +
          " (neither a static last dimension of '" + name + "' nor a key " +
          key + "=...)";
  return false;
}

bool checkDtypeFlag(const Options &options, rt::DType dtype, const char *what,
                    const std::string &argument, std::string &error) {
  if (options.dtype.empty() || options.dtype == rt::dtypeName(dtype))
    return true;
  error = "--dtype " + options.dtype + " does not match the bundle's " + what +
          " " + rt::dtypeName(dtype);
  if (!argument.empty())
    error += " (argument '" + argument + "')";
  return false;
}

bool checkHeadGroups(int64_t H, int64_t HV, std::string &error) {
  if (H >= 1 && HV % H == 0)
    return true;
  error = "--heads " + std::to_string(H) + " does not divide --value-heads " +
          std::to_string(HV);
  return false;
}

bool checkStaticDim(const rt::ArgSpec &arg, int dim, int64_t flag,
                    const char *flagName, const char *what,
                    std::string &error) {
  const rt::DimSpec &d = arg.dims[dim];
  if (!d.isStatic() || d.size == flag)
    return true;
  error = std::string(flagName) + " " + std::to_string(flag) +
          " does not match the bundle's " + what + " " + std::to_string(d.size);
  return false;
}

bool checkCuSeqlens(const Options &options, const rt::Manifest &manifest,
                    int64_t B, int64_t T, std::string &error) {
  const std::vector<int64_t> &cu = options.cuSeqlens;
  if (manifest.cuSeqlensArg >= 0 && cu.empty()) {
    error = "the bundle takes cu_seqlens: pass --cu-seqlens";
    return false;
  }
  if (manifest.cuSeqlensArg < 0 && !cu.empty()) {
    error = "the bundle is not varlen: drop --cu-seqlens";
    return false;
  }
  if (cu.empty())
    return true;
  if (B != 1) {
    error = "--cu-seqlens needs --batch 1";
    return false;
  }
  if (cu.size() < 2) {
    error =
        "cu_seqlens needs at least 2 entries, got " + std::to_string(cu.size());
    return false;
  }
  if (cu.front() != 0) {
    error = "cu_seqlens must start at 0, got " + std::to_string(cu.front());
    return false;
  }
  for (size_t i = 1; i < cu.size(); ++i)
    if (cu[i] < cu[i - 1]) {
      error = "cu_seqlens must be non-decreasing: cu_seqlens[" +
              std::to_string(i) + "] = " + std::to_string(cu[i]) +
              " < cu_seqlens[" + std::to_string(i - 1) +
              "] = " + std::to_string(cu[i - 1]);
      return false;
    }
  if (cu.back() != T) {
    error = "cu_seqlens must end at T = " + std::to_string(T) +
            " (--seq-len), got " + std::to_string(cu.back());
    return false;
  }
  return true;
}

bool sizeArguments(const rt::Manifest &manifest,
                   const std::map<std::string, int64_t> &symbols,
                   size_t numCuSeqlens,
                   std::vector<std::vector<int64_t>> &shapes,
                   std::string &error) {
  shapes.clear();
  for (const rt::ArgSpec &a : manifest.args) {
    std::vector<int64_t> shape;
    for (const rt::DimSpec &d : a.dims) {
      if (d.isStatic()) {
        shape.push_back(d.size);
        continue;
      }
      const std::string &sym = manifest.symbols[d.symbol];
      if (sym == "N1") {
        shape.push_back(static_cast<int64_t>(numCuSeqlens));
        continue;
      }
      auto it = symbols.find(sym);
      if (it == symbols.end()) {
        error = "argument '" + a.name + "' has a dimension '" + sym +
                "' that kda-run cannot size";
        return false;
      }
      shape.push_back(it->second);
    }
    shapes.push_back(std::move(shape));
  }
  return true;
}

bool checkSizes(const rt::Manifest &manifest,
                const std::vector<std::vector<int64_t>> &shapes, bool cpu,
                std::string &error) {
  // Bytes must fit too: at most 8 bytes an element.
  const int64_t limit = cpu ? int64_t(1) << 31 : int64_t(1) << 60;
  for (size_t a = 0; a < shapes.size(); ++a) {
    const std::vector<int64_t> &shape = shapes[a];
    if (std::find(shape.begin(), shape.end(), 0) != shape.end())
      continue; // empty
    int64_t elements = 1;
    bool tooLarge = false;
    for (int64_t d : shape) {
      tooLarge |= elements > limit / d;
      if (tooLarge)
        break;
      elements *= d;
    }
    if (!tooLarge)
      continue;
    std::string sizes;
    for (size_t d = 0; d < shapes[a].size(); ++d)
      sizes += (d ? "*" : "") + std::to_string(shapes[a][d]);
    error = "problem too large";
    error += cpu ? " for the CPU build: " : ": ";
    error += "argument '" + manifest.args[a].name + "' has " + sizes +
             " elements, more than " + (cpu ? "2^31" : "2^60");
    return false;
  }
  return true;
}

std::string inputOptionsText(const Options &options) {
  std::string text;
  char number[32];
  if (options.maskP != 0.0) {
    std::snprintf(number, sizeof number, "%g", options.maskP);
    text += std::string(" mask_p=") + number;
  }
  if (options.gateNorm != 1.0) {
    std::snprintf(number, sizeof number, "%g", options.gateNorm);
    text += std::string(" gate_norm=") + number;
  }
  return text + " seed=" + std::to_string(options.seed);
}

bool isFloat(rt::DType t) {
  return t == rt::DType::F32 || t == rt::DType::F16 || t == rt::DType::BF16;
}

bool bindArguments(const rt::Manifest &m, const char *program,
                   const std::vector<StageArg> &args, std::vector<int> &index,
                   std::string &error) {
  index.assign(args.size(), -1);
  bool anyOutput = false;
  for (size_t a = 0; a < args.size(); ++a) {
    int i = m.argIndex(args[a].name);
    index[a] = i;
    if (i < 0) {
      if (args[a].output)
        continue;
      error = std::string("the bundle (program=") + program +
              ") has no argument '" + args[a].name + "'";
      return false;
    }
    rt::ArgRole role = args[a].output ? rt::ArgRole::Output : rt::ArgRole::Input;
    if (m.args[i].role != role) {
      error = std::string("the bundle's '") + args[a].name + "' must be an " +
              (args[a].output ? "output" : "input");
      return false;
    }
    anyOutput |= args[a].output;
    if (m.args[i].rank() != args[a].rank) {
      error = std::string("the bundle's '") + args[a].name +
              "' must have rank " + std::to_string(args[a].rank) + ", it is " +
              m.args[i].dimsText;
      return false;
    }
  }
  if (!anyOutput) {
    error = std::string("the bundle (program=") + program + ") has no output";
    return false;
  }
  for (size_t a = 0; a < args.size(); ++a) {
    if (index[a] < 0)
      continue;
    rt::DType dtype = m.args[index[a]].dtype;
    std::string want = args[a].dtype;
    bool ok;
    if (want == "f32")
      ok = dtype == rt::DType::F32;
    else if (want == "float")
      ok = isFloat(dtype);
    else
      ok = isFloat(dtype) && dtype == m.args[m.argIndex(want)].dtype;
    if (!ok) {
      error = std::string("the bundle's '") + args[a].name + "' is " +
              rt::dtypeName(dtype) + "; expected " +
              (want == "f32"     ? std::string("f32")
               : want == "float" ? std::string("f32, f16 or bf16")
                                 : "the dtype of '" + want + "'");
      return false;
    }
  }
  return true;
}

bool bindBatchAndHeads(const Options &opt, const rt::Manifest &m,
                       const rt::ArgSpec &qk, const rt::ArgSpec &valueHeads,
                       std::string &error) {
  if (!checkStaticDim(qk, 0, opt.batch, "--batch", "static batch size",
                      error) ||
      !checkStaticDim(qk, 1, opt.seqLen, "--seq-len", "static token count",
                      error) ||
      !checkStaticDim(qk, 2, opt.heads, "--heads", "H", error) ||
      !checkStaticDim(valueHeads, 2, opt.valueHeads, "--value-heads", "HV",
                      error))
    return false;
  int64_t keyValue;
  if (parseKeyInt(m.key("H"), keyValue) && keyValue != opt.heads) {
    error = "--heads " + std::to_string(opt.heads) +
            " does not match the bundle's H " + std::to_string(keyValue);
    return false;
  }
  if (parseKeyInt(m.key("HV"), keyValue) && keyValue != opt.valueHeads) {
    error = "--value-heads " + std::to_string(opt.valueHeads) +
            " does not match the bundle's HV " + std::to_string(keyValue);
    return false;
  }
  return checkHeadGroups(opt.heads, opt.valueHeads, error);
}

} // namespace kda::run
