//===- BundleFuzzTarget.cpp - fuzz target: bundle container + manifest ----===//
//
// One input is a whole bundle file image. It goes through Bundle::parse (the
// container, the checksums, the manifest, the PTX entries) and the C API's
// kda_program_load_memory. Every input must either load, or be rejected with
// KDA_ERROR_INVALID_BUNDLE (or UNSUPPORTED_ABI for another header version)
// and a message; anything else aborts, and so does a crash or a sanitizer
// report. A bundle that loads is then validated against tensors shaped as
// its manifest says (symbols set from the input's hash), its workspace size
// asked for, and its CPU build run with CPU builds refused: nothing is ever
// handed to dlopen, and no driver is touched.
//
// The same entry point serves libFuzzer (KDA_RUNTIME_LIBFUZZER=ON, clang)
// and the project's own mutation driver (MutationDriver.cpp, any compiler).
//
//===----------------------------------------------------------------------===//

#include "kda/Runtime/Runtime.h"
#include "kda_runtime.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace {

using namespace kda::rt;

[[noreturn]] void fail(const char *what, const std::string &detail) {
  std::fprintf(stderr, "kda-bundle-fuzz: %s: %s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

/// A rejected bundle: the right class of error, with a one-line message.
void checkRejection(const char *where, ErrorCode code,
                    const std::string &message) {
  if (code != ErrorCode::InvalidBundle && code != ErrorCode::UnsupportedAbi)
    fail(where, "rejected with error class " +
                    std::to_string(static_cast<int>(code)) + ": " + message);
  if (message.empty())
    fail(where, "rejected without a message");
  if (message.find('\n') != std::string::npos)
    fail(where, "message of more than one line: " + message);
}

uint64_t hashBytes(const uint8_t *data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i)
    h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

alignas(256) unsigned char gBuffer[256];

/// Validation of a loaded program with tensors made from its manifest.
void exercise(const Program &program, uint64_t h) {
  const Manifest &m = program.manifest();
  static const int64_t kSymbolValues[] = {0, 1, 2, 3, 16, 64, 100, 4096};
  int64_t symbols[kMaxSymbols];
  for (int i = 0; i < kMaxSymbols; ++i) {
    symbols[i] = kSymbolValues[h % 8];
    h = h / 8 + 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(i + 1);
  }
  if (m.args.size() > static_cast<size_t>(kMaxArgs))
    fail("manifest", "more arguments than kMaxArgs were accepted");
  TensorArg tensors[kMaxArgs];
  for (size_t i = 0; i < m.args.size(); ++i) {
    const ArgSpec &a = m.args[i];
    if (a.rank() > kMaxRank)
      fail("manifest", "a rank above kMaxRank was accepted");
    tensors[i].data = gBuffer;
    tensors[i].dtype = a.dtype;
    tensors[i].rank = a.rank();
    for (int d = 0; d < a.rank(); ++d) {
      const DimSpec &dim = a.dims[d];
      if (!dim.isStatic() &&
          (dim.symbol < 0 || dim.symbol >= kMaxSymbols))
        fail("manifest", "a symbol index out of range was accepted");
      tensors[i].dims[d] = dim.isStatic() ? dim.size : symbols[dim.symbol];
    }
  }
  // cu_seqlens host copy: as many entries as the tensor, 0 .. T.
  int64_t cu[64] = {};
  size_t numCu = 0;
  if (m.cuSeqlensArg >= 0 && tensors[m.cuSeqlensArg].rank == 1 &&
      tensors[m.cuSeqlensArg].dims[0] > 0 &&
      tensors[m.cuSeqlensArg].dims[0] <= 64) {
    numCu = static_cast<size_t>(tensors[m.cuSeqlensArg].dims[0]);
    for (size_t i = 0; i < numCu; ++i)
      cu[i] = static_cast<int64_t>(i) * 16;
  }
  size_t bytes = 0;
  (void)program.workspaceSize(tensors, m.args.size(), bytes);
  LaunchArgs args;
  args.tensors = tensors;
  args.numTensors = m.args.size();
  args.cuSeqlensHost = numCu ? cu : nullptr;
  args.numCuSeqlensHost = numCu;
  args.workspace = gBuffer;
  args.workspaceBytes = bytes;
  Plan plan;
  (void)program.validate(args, plan);
  // CPU builds are refused: this must fail before anything is loaded.
  Status s = program.runCpu(args);
  if (s.isOk())
    fail("runCpu", "ran although CPU builds are refused");
}

} // namespace

/// Inputs that loaded, and that were rejected (read by the mutation driver).
extern "C" {
long kdaBundleFuzzLoaded = 0;
long kdaBundleFuzzRejected = 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);

  Bundle bundle;
  Status s = Bundle::parse(bytes, bundle);
  bool parsed = s.isOk();
  if (!parsed)
    checkRejection("Bundle::parse", s.code(), s.message());

  // The C API must agree with the C++ parser.
  kda_program *cp = nullptr;
  kda_status cs = kda_program_load_memory(size ? data : nullptr, size, &cp);
  if ((cs == KDA_OK) != parsed)
    fail("kda_program_load_memory",
         std::string("disagrees with Bundle::parse: ") +
             kda_status_name(cs) + " vs " + (parsed ? "ok" : s.message()));
  if (cs != KDA_OK) {
    const char *message = kda_last_error();
    if (cs != KDA_ERROR_INVALID_BUNDLE && cs != KDA_ERROR_UNSUPPORTED_ABI)
      fail("kda_program_load_memory", kda_status_name(cs));
    if (!message || !*message)
      fail("kda_program_load_memory", "rejected without a message");
  } else {
    if (!kda_program_entry(cp))
      fail("kda_program_entry", "null for a loaded program");
    for (int i = 0; i < kda_program_num_args(cp); ++i) {
      int32_t dtype, rank;
      if (kda_program_arg_info(cp, i, &dtype, &rank) != KDA_OK ||
          !kda_program_arg_name(cp, i))
        fail("kda_program_arg_info", "argument " + std::to_string(i));
    }
    kda_program_destroy(cp);
  }
  if (!parsed) {
    ++kdaBundleFuzzRejected;
    return 0;
  }
  ++kdaBundleFuzzLoaded;

  ProgramOptions options;
  options.refuseCpu = true;
  // Never the real driver, should anything reach for it.
  options.driverPath = "/nonexistent/kda-bundle-fuzz/libcuda.so.1";
  std::unique_ptr<Program> program;
  if (Status ps = Program::fromBundle(std::move(bundle), program, options);
      !ps)
    fail("Program::fromBundle", ps.message());
  exercise(*program, hashBytes(data, size));
  return 0;
}
