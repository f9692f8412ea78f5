//===- Bundle.cpp - the kernel bundle container ---------------------------===//
//
//   KDA-BUNDLE <abi>\n
//   section <name> <size>\n <size bytes> \n   (repeated)
//   end\n
//
// A `checksums` section, when present, lists "<name> <fnv1a64 hex>" for
// every other section; each is verified before any section is used.
//
//===----------------------------------------------------------------------===//

#include "kda/Runtime/Bundle.h"
#include "kda_bundle_checksum.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_map>
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

/// Checks the `checksums` section `text` against the sections' payloads:
/// every line is "<name> <16 hex digits>" naming another section once,
/// every other section is listed, and each hash matches.
Status verifyChecksums(
    std::string_view text,
    const std::unordered_map<std::string_view, std::string_view> &payloads) {
  std::unordered_set<std::string_view> listed;
  size_t pos = 0;
  int lineNo = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos)
      eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++lineNo;
    size_t space = line.find(' ');
    std::string_view name, hex;
    if (space != std::string_view::npos) {
      name = line.substr(0, space);
      hex = line.substr(space + 1);
    }
    uint64_t expected = 0;
    bool hexOk = hex.size() == 16;
    for (char c : hex) {
      int digit = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                         : -1;
      if (digit < 0) {
        hexOk = false;
        break;
      }
      expected = expected << 4 | static_cast<uint64_t>(digit);
    }
    if (name.empty() || !hexOk)
      return bundleError("checksums line " + std::to_string(lineNo) + " " +
                         quoteLine(line) +
                         ": expected '<section> <16 lowercase hex digits>'");
    auto it = payloads.find(name);
    if (it == payloads.end() || name == "checksums")
      return bundleError("checksums line " + std::to_string(lineNo) +
                         " names no section of the bundle: '" +
                         std::string(name) + "'");
    if (!listed.insert(name).second)
      return bundleError("checksums list section '" + std::string(name) +
                         "' twice");
    if (kda_bundle_checksum(it->second.data(), it->second.size()) != expected)
      return bundleError("section '" + std::string(name) +
                         "' does not match its checksum (the bundle is "
                         "damaged)");
  }
  for (const auto &[name, payload] : payloads)
    if (name != "checksums" && !listed.count(name))
      return bundleError("section '" + std::string(name) +
                         "' has no checksum");
  return Status::ok();
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
  std::unordered_map<std::string_view, std::string_view> payloads;
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
    // A set of views into `data`: linear in the number of sections (with
    // a scan of the names seen, a fuzzing run reported 54 s for 200,000
    // empty sections).
    if (!payloads.emplace(name, payload).second)
      return bundleError("duplicate section '" + std::string(name) + "'");
    out.sections.emplace_back(name);
  }
  if (!sawEnd)
    return bundleError("truncated bundle: missing 'end' line");
  if (pos != data.size())
    return bundleError(std::to_string(data.size() - pos) +
                       " bytes of data after the 'end' line");
  // Nothing is used before the checksums, when there are any, hold.
  if (auto it = payloads.find("checksums"); it != payloads.end()) {
    if (Status s = verifyChecksums(it->second, payloads); !s)
      return s;
    out.checksummed = true;
  }
  for (const std::string &sectionName : out.sections) {
    std::string_view name = sectionName;
    std::string_view payload = payloads.at(name);
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
    // Unknown sections (checksums included) are skipped.
  }
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
