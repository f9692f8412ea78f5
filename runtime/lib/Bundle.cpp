//===- Bundle.cpp - the kernel bundle container ---------------------------===//
//
//   KDA-BUNDLE <abi>\n
//   section <name> <size>\n <size bytes> \n   (repeated)
//   end\n
//
//===----------------------------------------------------------------------===//

#include "kda/Runtime/Bundle.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_set>

namespace kda::rt {

namespace {

Status bundleError(const std::string &message) {
  return Status::error(ErrorCode::InvalidBundle, message);
}

/// Parses a non-negative decimal without sign or leading spaces.
bool parseDecimal(std::string_view s, uint64_t &out) {
  if (s.empty() || s.size() > 19)
    return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  out = v;
  return true;
}

/// Printable form of a line for messages (at most 40 characters).
std::string quoteLine(std::string_view line) {
  std::string s;
  for (char c : line.substr(0, 40))
    s += (c >= 32 && c < 127) ? c : '?';
  if (line.size() > 40)
    s += "...";
  return "'" + s + "'";
}

} // namespace

Status Bundle::parse(std::string_view data, Bundle &out) {
  out = Bundle();
  const std::string_view magic = "KDA-BUNDLE ";
  if (data.substr(0, magic.size()) != magic)
    return bundleError("not a kda bundle (the file does not start with "
                       "'KDA-BUNDLE')");
  size_t eol = data.find('\n');
  if (eol == std::string_view::npos)
    return bundleError("truncated bundle: no complete header line");
  std::string_view versionText = data.substr(magic.size(), eol - magic.size());
  uint64_t version;
  if (!parseDecimal(versionText, version))
    return bundleError("bad bundle header " + quoteLine(data.substr(0, eol)) +
                       ": expected 'KDA-BUNDLE <version>'");
  if (version != static_cast<uint64_t>(kAbiVersion))
    return Status::error(ErrorCode::UnsupportedAbi,
                         "bundle ABI version " + std::to_string(version) +
                             " is not supported (this runtime implements "
                             "ABI version " +
                             std::to_string(kAbiVersion) + ")");
  out.abi = static_cast<int>(version);

  bool haveManifest = false, havePtx = false, sawEnd = false;
  std::unordered_set<std::string_view> seenNames;
  std::string manifestText;
  size_t pos = eol + 1;
  while (pos < data.size()) {
    eol = data.find('\n', pos);
    if (eol == std::string_view::npos)
      return bundleError("truncated bundle: incomplete line " +
                         quoteLine(data.substr(pos)) + " at byte " +
                         std::to_string(pos));
    std::string_view line = data.substr(pos, eol - pos);
    if (line == "end") {
      sawEnd = true;
      pos = eol + 1;
      break;
    }
    // section <name> <size>
    const std::string_view prefix = "section ";
    size_t space = line.rfind(' ');
    std::string_view name, sizeText;
    if (line.substr(0, prefix.size()) == prefix && space >= prefix.size()) {
      name = line.substr(prefix.size(), space - prefix.size());
      sizeText = line.substr(space + 1);
    }
    uint64_t size;
    if (name.empty() || name.find(' ') != std::string_view::npos ||
        !parseDecimal(sizeText, size))
      return bundleError("bad section line " + quoteLine(line) + " at byte " +
                         std::to_string(pos) +
                         ": expected 'section <name> <size>' or 'end'");
    pos = eol + 1;
    if (size > data.size() - pos)
      return bundleError("truncated bundle: section '" + std::string(name) +
                         "' declares " + std::to_string(size) +
                         " bytes, only " + std::to_string(data.size() - pos) +
                         " remain");
    std::string_view payload = data.substr(pos, size);
    pos += size;
    if (pos >= data.size() || data[pos] != '\n')
      return bundleError(pos >= data.size()
                             ? "truncated bundle: section '" +
                                   std::string(name) +
                                   "' is not followed by a newline"
                             : "section '" + std::string(name) +
                                   "' is not followed by a newline (is its "
                                   "size right?)");
    ++pos;
    // A set of views into `data`: linear in the number of sections (a
    // scan of the names seen took 54 s for 200,000 empty sections).
    if (!seenNames.insert(name).second)
      return bundleError("duplicate section '" + std::string(name) + "'");
    out.sections.emplace_back(name);
    if (name == "manifest") {
      haveManifest = true;
      manifestText.assign(payload);
    } else if (name == "ptx") {
      if (payload.find('\0') != std::string_view::npos)
        return bundleError("section 'ptx' contains a NUL byte");
      havePtx = true;
      out.ptx.assign(payload);
    } else if (name == "cubin") {
      out.hasCubin = true;
      out.cubin.assign(payload);
    } else if (name == "cpu") {
      out.hasCpu = true;
      out.cpu.assign(payload);
    }
    // Unknown sections are skipped.
  }
  if (!sawEnd)
    return bundleError("truncated bundle: missing 'end' line");
  if (pos != data.size())
    return bundleError(std::to_string(data.size() - pos) +
                       " bytes of data after the 'end' line");
  if (!haveManifest)
    return bundleError("missing required section 'manifest'");
  if (!havePtx)
    return bundleError("missing required section 'ptx'");
  if (Status s = Manifest::parse(manifestText, out.abi, out.manifest); !s)
    return s;
  return checkPtxEntries(out.ptx, out.manifest);
}

Status Bundle::readFile(const std::string &path, Bundle &out) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return Status::error(ErrorCode::IoError, "cannot open '" + path +
                                                 "': " + std::strerror(errno));
  std::string data;
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0)
    data.append(buffer, n);
  bool bad = std::ferror(f) != 0;
  int err = errno;
  std::fclose(f);
  if (bad)
    return Status::error(ErrorCode::IoError, "cannot read '" + path +
                                                 "': " + std::strerror(err));
  return parse(data, out).withPrefix(path + ": ");
}

} // namespace kda::rt
