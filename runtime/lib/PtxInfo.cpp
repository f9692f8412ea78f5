//===- PtxInfo.cpp - kernel entries declared by PTX text ------------------===//
//
// Finds the `.entry` declarations of a PTX module and their parameter sizes,
// so a bundle whose manifest disagrees with its PTX (a missing kernel, a
// different number of parameters) is rejected when it is loaded rather than
// producing garbage on the GPU.
//
//===----------------------------------------------------------------------===//

#include "kda/Runtime/Bundle.h"

#include <cctype>

namespace kda::rt {

namespace {

struct PtxEntry {
  std::string name;
  /// Size in bytes of each parameter (0 when not a plain scalar).
  std::vector<int> paramSizes;
};

/// The PTX without // and /* */ comments (newlines kept).
std::string stripComments(std::string_view ptx) {
  std::string out;
  out.reserve(ptx.size());
  for (size_t i = 0; i < ptx.size(); ++i) {
    if (ptx[i] == '/' && i + 1 < ptx.size() && ptx[i + 1] == '/') {
      while (i < ptx.size() && ptx[i] != '\n')
        ++i;
      if (i < ptx.size())
        out += '\n';
      continue;
    }
    if (ptx[i] == '/' && i + 1 < ptx.size() && ptx[i + 1] == '*') {
      size_t end = ptx.find("*/", i + 2);
      i = end == std::string_view::npos ? ptx.size() : end + 1;
      out += ' ';
      continue;
    }
    out += ptx[i];
  }
  return out;
}

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '.' || c == '%';
}

/// Size of a PTX scalar type (.u64 -> 8), or 0.
int typeSize(std::string_view t) {
  if (t.size() < 3 || t[0] != '.')
    return 0;
  char kind = t[1];
  if (kind != 'u' && kind != 's' && kind != 'b' && kind != 'f')
    return 0;
  std::string_view bits = t.substr(2);
  if (bits == "8")
    return 1;
  if (bits == "16")
    return 2;
  if (bits == "32")
    return 4;
  if (bits == "64")
    return 8;
  return 0;
}

/// Parameter size from one declaration (".param .u64 .ptr .align 1 name").
int paramSize(std::string_view decl) {
  int size = 0;
  size_t i = 0;
  while (i < decl.size()) {
    while (i < decl.size() && std::isspace(static_cast<unsigned char>(decl[i])))
      ++i;
    size_t start = i;
    while (i < decl.size() &&
           !std::isspace(static_cast<unsigned char>(decl[i])))
      ++i;
    std::string_view tok = decl.substr(start, i - start);
    if (int s = typeSize(tok))
      size = size ? size : s;
    if (tok.find('[') != std::string_view::npos)
      return 0; // an array (byte-aggregate) parameter
  }
  return size;
}

std::vector<PtxEntry> findEntries(std::string_view text) {
  std::vector<PtxEntry> entries;
  size_t pos = 0;
  while ((pos = text.find(".entry", pos)) != std::string_view::npos) {
    size_t i = pos + 6;
    bool boundary = (pos == 0 || !isNameChar(text[pos - 1])) &&
                    i < text.size() &&
                    std::isspace(static_cast<unsigned char>(text[i]));
    pos = i;
    if (!boundary)
      continue;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
      ++i;
    size_t start = i;
    while (i < text.size() && isNameChar(text[i]))
      ++i;
    PtxEntry e;
    e.name = std::string(text.substr(start, i - start));
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
      ++i;
    if (i < text.size() && text[i] == '(') {
      size_t close = text.find(')', i);
      if (close == std::string_view::npos)
        close = text.size();
      std::string_view list = text.substr(i + 1, close - i - 1);
      size_t s = 0;
      while (s <= list.size()) {
        size_t comma = list.find(',', s);
        if (comma == std::string_view::npos)
          comma = list.size();
        std::string_view decl = list.substr(s, comma - s);
        if (decl.find(".param") != std::string_view::npos)
          e.paramSizes.push_back(paramSize(decl));
        s = comma + 1;
      }
      pos = close;
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

} // namespace

/// The compiler records, in comment lines of the PTX, the manifest `arg`
/// lines of the shapes it compiled the code for ("// kda.arg 0 g input bf16
/// B,T,4,64"). When there are any, the manifest must say the same: a
/// manifest whose shapes contradict the code would make the caller size
/// buffers the code overruns. (PTX without them, from older compilers or
/// written by hand, is not checked.)
static Status checkCompiledArgs(std::string_view ptx,
                                const Manifest &manifest) {
  const std::string_view prefix = "// kda.arg ";
  size_t count = 0, pos = 0;
  while (pos < ptx.size()) {
    size_t eol = ptx.find('\n', pos);
    if (eol == std::string_view::npos)
      eol = ptx.size();
    std::string_view line = ptx.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.substr(0, prefix.size()) != prefix)
      continue;
    std::string_view recorded = line.substr(7); // "arg ..."
    if (count >= manifest.args.size())
      return Status::error(ErrorCode::InvalidBundle,
                           "the code was compiled for more arguments than "
                           "the manifest's " +
                               std::to_string(manifest.args.size()));
    const ArgSpec &a = manifest.args[count];
    std::string expected = "arg " + std::to_string(a.index) + " " + a.name +
                           (a.role == ArgRole::Input ? " input " : " output ") +
                           dtypeName(a.dtype) + " " + a.dimsText;
    if (recorded != expected) {
      std::string shown(recorded.substr(0, 200));
      for (char &c : shown)
        if (c < 32 || c >= 127)
          c = '?';
      return Status::error(ErrorCode::InvalidBundle,
                           "manifest argument " + std::to_string(count) +
                               " '" + a.name + "' is '" + expected +
                               "', but the code was compiled for '" + shown +
                               "'");
    }
    ++count;
  }
  if (count != 0 && count != manifest.args.size())
    return Status::error(ErrorCode::InvalidBundle,
                         "the code was compiled for " + std::to_string(count) +
                             " arguments, the manifest has " +
                             std::to_string(manifest.args.size()));
  return Status::ok();
}

Status checkPtxEntries(std::string_view ptx, const Manifest &manifest) {
  if (Status s = checkCompiledArgs(ptx, manifest); !s)
    return s;
  std::string text = stripComments(ptx);
  std::vector<PtxEntry> entries = findEntries(text);
  for (const KernelSpec &k : manifest.kernels) {
    const PtxEntry *entry = nullptr;
    for (const PtxEntry &e : entries)
      if (e.name == k.name)
        entry = &e;
    if (!entry)
      return Status::error(ErrorCode::InvalidBundle,
                           "kernel '" + k.name +
                               "' of the manifest is not an .entry of the "
                               "PTX");
    if (static_cast<int>(entry->paramSizes.size()) != k.numParamWords)
      return Status::error(
          ErrorCode::InvalidBundle,
          "kernel '" + k.name + "': the manifest passes " +
              std::to_string(k.numParamWords) +
              " 64-bit parameters, the PTX entry declares " +
              std::to_string(entry->paramSizes.size()));
    for (size_t i = 0; i < entry->paramSizes.size(); ++i)
      if (entry->paramSizes[i] != 8)
        return Status::error(ErrorCode::InvalidBundle,
                             "kernel '" + k.name + "': PTX parameter " +
                                 std::to_string(i) +
                                 " is not a 64-bit scalar (the manifest "
                                 "passes 64-bit values only)");
  }
  return Status::ok();
}

} // namespace kda::rt
