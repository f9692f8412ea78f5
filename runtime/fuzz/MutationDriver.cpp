//===- MutationDriver.cpp - kda-bundle-fuzz: a deterministic mutation fuzzer ===//
//
//   kda-bundle-fuzz [--seed N] [--seconds S] [--runs N] [--artifact-dir DIR]
//                   CORPUS...
//   kda-bundle-fuzz --replay FILE...
//
// Runs LLVMFuzzerTestOneInput (BundleFuzzTarget.cpp) on every corpus file
// (files, or directories whose files are read), then on mutants of them until
// --runs inputs or --seconds have passed (default: 20000 runs, no time limit).
// The mutants depend only on the seed and the corpus, so a run is repeated
// by its seed; each mutant's number and recipe is printed with --verbose.
//
// Mutations: on the raw image (bit flips, interesting bytes, truncation,
// insertion of bytes or of tokens, deletion and duplication of ranges,
// section sizes set to 0, +-1, huge or random, numbers replaced by 0, -1 or
// huge ones, lines deleted, duplicated or swapped, tokens swapped, splices
// from another corpus file) and on the sections (a section's payload, mostly
// the manifest, mutated in the same ways and the container written anew with
// right sizes and, most of the time, right checksums, so that the mutants
// reach the manifest parser and the validation behind the checksums).
//
// Built with -fsanitize=address,undefined (KDA_RUNTIME_SANITIZE), a crash,
// an out-of-bounds access or undefined behaviour stops the run; the input is
// first written to --artifact-dir (default: the working directory) as
// crash-<seed>-<run>.kdab. The last line is PASS when every input ran.
//
//===----------------------------------------------------------------------===//

#include "kda_bundle_checksum.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

// The sanitizers' death callback, present only in sanitized builds (a weak
// reference: null otherwise).
extern "C" void __sanitizer_set_death_callback(void (*callback)(void))
    __attribute__((weak));

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" long kdaBundleFuzzLoaded, kdaBundleFuzzRejected;

namespace {

/// splitmix64: small, fast, and the same everywhere.
struct Rng {
  uint64_t state;
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n) (n > 0).
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }
  bool oneIn(size_t n) { return below(n) == 0; }
};

constexpr size_t kMaxInput = 1 << 20;

const char *const kNumbers[] = {
    "0", "1", "-1", "2", "7", "8", "9", "15", "16", "17", "31", "32", "33",
    "63", "64", "65", "255", "256", "4096", "65536", "2147483647",
    "2147483648", "4294967295", "4294967296", "9223372036854775807",
    "9223372036854775808", "18446744073709551615", "18446744073709551616",
    "99999999999999999999999", "-9223372036854775808", "00", "1e3", "0x10",
    "+1", ""};

const char *const kTokens[] = {
    " ", "  ", "\n", "\t", "\r", ",", "(", ")", "#", "\0", "-", "=",
    "dim(0,0)", "dim(9,9)", "ceildiv(", "div(1,0)", "mul(", "sub(", "add(",
    "max(", "min(", "dim(0,1)", "sub(0,1)",
    "mul(dim(0,1),mul(dim(0,1),dim(0,1)))", "B", "T", "HV", "N1",
    "f32", "bf16", "f16", "i32", "i64", "input", "output", "arg 0 ",
    "param arg 0\n", "param index 0\n", "param workspace w f32 1\n",
    "workspace w 1\n", "kernel k\n", "end-kernel\n", "block 1 1 1\n",
    "grid 1 1 1\n", "shared 0\n", "key a=b\n", "entry e\n", "chip sm_90\n",
    "chip sm_\n", "abi 1\n", "section ", "section manifest 0\n\n",
    "section ptx 0\n\n", "section checksums 0\n\n", "end\n", "KDA-BUNDLE 1\n",
    ".entry ", ".visible .entry k(\n.param .u64 p\n)\n", ".param .u64 ",
    "cu_seqlens", "sm_90a", "sm_1000"};

const unsigned char kBytes[] = {0, 1, 0x7f, 0x80, 0xff, '\n', ' ', '0',
                                '9', '-', ',', '(', ')', '#', 'a', '='};

struct Section {
  std::string name, payload;
};

/// Splits a well-formed container; false when it is not one.
bool splitBundle(const std::string &data, std::string &header,
                 std::vector<Section> &sections) {
  size_t eol = data.find('\n');
  if (eol == std::string::npos || data.compare(0, 11, "KDA-BUNDLE ") != 0)
    return false;
  header = data.substr(0, eol + 1);
  size_t pos = eol + 1;
  while (pos < data.size()) {
    eol = data.find('\n', pos);
    if (eol == std::string::npos)
      return false;
    std::string line = data.substr(pos, eol - pos);
    if (line == "end")
      return true;
    if (line.compare(0, 8, "section ") != 0)
      return false;
    size_t space = line.rfind(' ');
    if (space <= 8)
      return false;
    Section s;
    s.name = line.substr(8, space - 8);
    char *end = nullptr;
    unsigned long long size = std::strtoull(line.c_str() + space + 1, &end, 10);
    pos = eol + 1;
    if (size > data.size() - pos)
      return false;
    s.payload = data.substr(pos, size);
    pos += size + 1;
    sections.push_back(std::move(s));
  }
  return false;
}

std::string hex16(uint64_t v) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx",
                static_cast<unsigned long long>(v));
  return buffer;
}

/// Writes the container anew; with `fixChecksums`, a `checksums` section is
/// recomputed over the others.
std::string joinBundle(const std::string &header,
                       std::vector<Section> sections, bool fixChecksums) {
  if (fixChecksums) {
    std::string sums;
    for (const Section &s : sections)
      if (s.name != "checksums")
        sums += s.name + " " +
                hex16(kda_bundle_checksum(s.payload.data(), s.payload.size())) +
                "\n";
    for (Section &s : sections)
      if (s.name == "checksums")
        s.payload = sums;
  }
  std::string out = header;
  for (const Section &s : sections)
    out += "section " + s.name + " " + std::to_string(s.payload.size()) +
           "\n" + s.payload + "\n";
  return out + "end\n";
}

/// Start and end offsets of the lines of `s`.
std::vector<std::pair<size_t, size_t>> lines(const std::string &s) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t eol = s.find('\n', pos);
    size_t end = eol == std::string::npos ? s.size() : eol + 1;
    out.push_back({pos, end});
    pos = end;
  }
  return out;
}

/// One mutation of `s` in place; returns its name.
const char *mutateOnce(std::string &s, Rng &rng,
                       const std::vector<std::string> &corpus) {
  switch (rng.below(13)) {
  case 0:
    if (s.empty())
      break;
    s[rng.below(s.size())] ^= static_cast<char>(1u << rng.below(8));
    return "bit-flip";
  case 1:
    if (s.empty())
      break;
    s[rng.below(s.size())] =
        static_cast<char>(kBytes[rng.below(sizeof kBytes)]);
    return "byte";
  case 2:
    s.resize(rng.below(s.size() + 1));
    return "truncate";
  case 3: {
    std::string bytes(1 + rng.below(8), '\0');
    for (char &c : bytes)
      c = static_cast<char>(rng.below(256));
    s.insert(rng.below(s.size() + 1), bytes);
    return "insert-bytes";
  }
  case 4: {
    size_t i = rng.below(sizeof kTokens / sizeof kTokens[0]);
    // "\0" is one NUL byte, not an empty string.
    std::string token = kTokens[i][0] ? std::string(kTokens[i])
                                      : std::string(1, '\0');
    s.insert(rng.below(s.size() + 1), token);
    return "insert-token";
  }
  case 5: {
    if (s.empty())
      break;
    size_t at = rng.below(s.size());
    s.erase(at, 1 + rng.below(std::min<size_t>(64, s.size() - at)));
    return "delete-range";
  }
  case 6: {
    if (s.empty())
      break;
    size_t at = rng.below(s.size());
    std::string piece = s.substr(at, 1 + rng.below(64));
    s.insert(rng.below(s.size() + 1), piece);
    return "duplicate-range";
  }
  case 7: {
    // A section size: 0, +-1, twice, huge or random.
    std::vector<std::pair<size_t, size_t>> sizes;
    for (auto [b, e] : lines(s))
      if (s.compare(b, 8, "section ") == 0) {
        size_t sp = s.rfind(' ', e - 1);
        if (sp != std::string::npos && sp > b)
          sizes.push_back({sp + 1, e - (s[e - 1] == '\n' ? 1 : 0)});
      }
    if (sizes.empty())
      break;
    auto [b, e] = sizes[rng.below(sizes.size())];
    unsigned long long old = std::strtoull(s.substr(b, e - b).c_str(),
                                           nullptr, 10);
    std::string repl;
    switch (rng.below(6)) {
    case 0: repl = "0"; break;
    case 1: repl = std::to_string(old + 1); break;
    case 2: repl = std::to_string(old ? old - 1 : 0); break;
    case 3: repl = std::to_string(old * 2); break;
    case 4: repl = kNumbers[rng.below(sizeof kNumbers / sizeof kNumbers[0])];
      break;
    default: repl = std::to_string(rng.below(s.size() + 16)); break;
    }
    s.replace(b, e - b, repl);
    return "section-size";
  }
  case 8: {
    // A number (a run of digits) replaced by an interesting one.
    std::vector<std::pair<size_t, size_t>> runs;
    for (size_t i = 0; i < s.size();) {
      if (s[i] >= '0' && s[i] <= '9') {
        size_t j = i;
        while (j < s.size() && s[j] >= '0' && s[j] <= '9')
          ++j;
        runs.push_back({i, j});
        i = j;
      } else {
        ++i;
      }
    }
    if (runs.empty())
      break;
    auto [b, e] = runs[rng.below(runs.size())];
    s.replace(b, e - b,
              kNumbers[rng.below(sizeof kNumbers / sizeof kNumbers[0])]);
    return "number";
  }
  case 9: {
    auto ls = lines(s);
    if (ls.empty())
      break;
    auto [b, e] = ls[rng.below(ls.size())];
    if (rng.oneIn(2)) {
      s.erase(b, e - b);
      return "delete-line";
    }
    s.insert(ls[rng.below(ls.size())].first, s.substr(b, e - b));
    return "duplicate-line";
  }
  case 10: {
    auto ls = lines(s);
    if (ls.size() < 2)
      break;
    size_t i = rng.below(ls.size()), j = rng.below(ls.size());
    if (i == j)
      break;
    if (i > j)
      std::swap(i, j);
    std::string a = s.substr(ls[i].first, ls[i].second - ls[i].first);
    std::string b = s.substr(ls[j].first, ls[j].second - ls[j].first);
    s.replace(ls[j].first, b.size(), a);
    s.replace(ls[i].first, a.size(), b);
    return "swap-lines";
  }
  case 11: {
    // Two space-separated tokens swapped.
    std::vector<std::pair<size_t, size_t>> tokens;
    for (size_t i = 0; i < s.size();) {
      if (s[i] == ' ' || s[i] == '\n') {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < s.size() && s[j] != ' ' && s[j] != '\n')
        ++j;
      tokens.push_back({i, j});
      i = j;
    }
    if (tokens.size() < 2)
      break;
    size_t i = rng.below(tokens.size()), j = rng.below(tokens.size());
    if (i == j)
      break;
    if (i > j)
      std::swap(i, j);
    std::string a = s.substr(tokens[i].first, tokens[i].second - tokens[i].first);
    std::string b = s.substr(tokens[j].first, tokens[j].second - tokens[j].first);
    s.replace(tokens[j].first, b.size(), a);
    s.replace(tokens[i].first, a.size(), b);
    return "swap-tokens";
  }
  default: {
    const std::string &other = corpus[rng.below(corpus.size())];
    if (other.empty())
      break;
    size_t at = rng.below(other.size());
    s.insert(rng.below(s.size() + 1), other.substr(at, 1 + rng.below(256)));
    return "splice";
  }
  }
  return "none";
}

/// A mutant of `seed`; `recipe` says what was done.
std::string mutate(const std::string &seed, Rng &rng,
                   const std::vector<std::string> &corpus,
                   std::string &recipe) {
  std::string header;
  std::vector<Section> sections;
  int count = 1 + static_cast<int>(rng.below(4));
  if (rng.oneIn(2) && splitBundle(seed, header, sections) &&
      !sections.empty()) {
    // Mutate payloads, mostly the manifest's, then write the container anew.
    for (int i = 0; i < count; ++i) {
      size_t which = rng.below(sections.size());
      if (!rng.oneIn(4))
        for (size_t k = 0; k < sections.size(); ++k)
          if (sections[k].name == "manifest")
            which = k;
      recipe += std::string(i ? "," : "") + sections[which].name + ":" +
                mutateOnce(sections[which].payload, rng, corpus);
    }
    bool fix = !rng.oneIn(5);
    recipe += fix ? " (checksums recomputed)" : " (checksums kept)";
    std::string out = joinBundle(header, sections, fix);
    if (out.size() > kMaxInput)
      out.resize(kMaxInput);
    return out;
  }
  std::string out = seed;
  for (int i = 0; i < count; ++i)
    recipe += std::string(i ? "," : "") + mutateOnce(out, rng, corpus);
  if (out.size() > kMaxInput)
    out.resize(kMaxInput);
  return out;
}

bool readFile(const std::string &path, std::string &out) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

/// Files of `path` (itself, or a directory's regular files, sorted).
std::vector<std::string> listInputs(const std::string &path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    return {};
  if (!S_ISDIR(st.st_mode))
    return {path};
  std::vector<std::string> out;
  if (DIR *d = opendir(path.c_str())) {
    while (dirent *e = readdir(d)) {
      std::string full = path + "/" + e->d_name;
      if (e->d_name[0] != '.' && stat(full.c_str(), &st) == 0 &&
          S_ISREG(st.st_mode))
        out.push_back(full);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The input being run, written out if a sanitizer reports or a signal
// (the target's abort, a crash without sanitizers) ends the run. Only
// async-signal-safe calls: the path is prepared before each run.
const std::string *gCurrent = nullptr;
char gArtifactPath[4096];

void writeCurrent() {
  const std::string *input = gCurrent;
  if (!input || !gArtifactPath[0])
    return;
  gCurrent = nullptr;
  int fd = open(gArtifactPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    return;
  const char *p = input->data();
  size_t left = input->size();
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n <= 0)
      break;
    p += n;
    left -= static_cast<size_t>(n);
  }
  close(fd);
  const char note[] = "kda-bundle-fuzz: the input is written to ";
  (void)!write(2, note, sizeof note - 1);
  (void)!write(2, gArtifactPath, std::strlen(gArtifactPath));
  (void)!write(2, "\n", 1);
}

void onSignal(int sig) {
  writeCurrent();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

int usage() {
  std::fprintf(stderr,
               "usage: kda-bundle-fuzz [--seed N] [--seconds S] [--runs N] "
               "[--artifact-dir DIR] [--verbose] CORPUS...\n"
               "       kda-bundle-fuzz --replay FILE...\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  uint64_t seed = 1;
  double seconds = 0;
  long runs = 20000;
  bool replay = false, verbose = false;
  std::string artifactDir = ".";
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char * {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    const char *v = nullptr;
    if (a == "--seed" && (v = value()))
      seed = std::strtoull(v, nullptr, 10);
    else if (a == "--seconds" && (v = value()))
      seconds = std::strtod(v, nullptr);
    else if (a == "--runs" && (v = value()))
      runs = std::strtol(v, nullptr, 10);
    else if (a == "--artifact-dir" && (v = value()))
      artifactDir = v;
    else if (a == "--replay")
      replay = true;
    else if (a == "--verbose")
      verbose = true;
    else if (!a.empty() && a[0] == '-')
      return usage();
    else
      paths.push_back(a);
  }
  if (paths.empty())
    return usage();

  std::vector<std::string> names, corpus;
  for (const std::string &p : paths)
    for (const std::string &f : listInputs(p)) {
      std::string data;
      if (!readFile(f, data)) {
        std::fprintf(stderr, "kda-bundle-fuzz: cannot read '%s'\n", f.c_str());
        return 2;
      }
      names.push_back(f);
      corpus.push_back(std::move(data));
    }
  if (corpus.empty()) {
    std::fprintf(stderr, "kda-bundle-fuzz: no input files\n");
    return 2;
  }
  if (__sanitizer_set_death_callback)
    __sanitizer_set_death_callback(writeCurrent);
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL})
    std::signal(sig, onSignal);
  auto run = [&](const std::string &input, const std::string &artifact) {
    std::snprintf(gArtifactPath, sizeof gArtifactPath, "%s",
                  artifact.c_str());
    gCurrent = &input;
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(input.data()),
                           input.size());
    gCurrent = nullptr;
  };

  for (size_t i = 0; i < corpus.size(); ++i) {
    if (verbose || replay)
      std::printf("run %s (%zu bytes)\n", names[i].c_str(), corpus[i].size());
    std::fflush(stdout);
    // (A corpus file that fails is a file already: nothing is written.)
    run(corpus[i], "");
  }
  if (replay) {
    std::printf("%zu inputs replayed: %ld loaded, %ld rejected\nPASS\n",
                corpus.size(), kdaBundleFuzzLoaded, kdaBundleFuzzRejected);
    return 0;
  }

  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  Rng rng(seed);
  long done = 0;
  for (; done < runs; ++done) {
    if (seconds > 0 && (done & 63) == 0 && elapsed() >= seconds)
      break;
    size_t from = rng.below(corpus.size());
    std::string recipe;
    std::string input = mutate(corpus[from], rng, corpus, recipe);
    if (verbose)
      std::printf("mutant %ld of %s: %s\n", done, names[from].c_str(),
                  recipe.c_str());
    std::fflush(stdout);
    run(input, artifactDir + "/crash-" + std::to_string(seed) + "-" +
                   std::to_string(done) + ".kdab");
  }
  std::printf("kda-bundle-fuzz: %zu corpus files and %ld mutants (seed %llu) "
              "in %.1f s, no crash: %ld loaded, %ld rejected\n",
              corpus.size(), done, static_cast<unsigned long long>(seed),
              elapsed(), kdaBundleFuzzLoaded, kdaBundleFuzzRejected);
  std::printf("PASS\n");
  return 0;
}
