//===- TestBundles.h - hand-written bundles for the host tests ---*- C++ -*-===//

#ifndef KDA_RUNTIME_TEST_TESTBUNDLES_H
#define KDA_RUNTIME_TEST_TESTBUNDLES_H

#include "kda/Runtime/Program.h"

#include <string>
#include <utility>
#include <vector>

namespace kda::rt::test {

/// A bundle file image with the given sections, in order.
std::string makeBundle(
    const std::vector<std::pair<std::string, std::string>> &sections,
    int abi = 1);

/// A bundle with a manifest and PTX declaring each kernel of the manifest
/// with as many 64-bit parameters as it passes.
std::string makeBundle(const std::string &manifest);

/// PTX declaring `name` with `numParams` .u64 parameters and an empty body.
std::string ptxEntry(const std::string &name, int numParams);

/// q [B,T,H,8] bf16, g [B,T,HV,8] bf16, cu_seqlens [N1] i64, o [B,T,HV,8]
/// f32; workspaces, 64 KiB of dynamic shared memory, every parameter kind
/// (51 parameter words).
extern const char *const kFullManifest;
/// x [B,T,4] f32 -> y [B,T,4] f32, entry test_scale (the fake cpu build).
extern const char *const kScaleManifest;

/// Path of the mock driver library and of the fake cpu build.
std::string mockDriverPath();
std::string fakeCpuSectionPath();

/// Reads a whole file ("" on failure).
std::string readFile(const std::string &path);

/// A copy of the mock driver under a new name, loaded as a separate library
/// instance with its own state (so one test can configure it before the
/// runtime opens it).
struct MockInstance {
  std::string path;
  struct KdaMockState *state = nullptr;
};
MockInstance freshMock(const std::string &name);

/// Device-memory stand-ins for the mock: 256-byte aligned host buffers.
struct Buffer {
  explicit Buffer(size_t bytes, unsigned char fill = 0xAB);
  ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  void *data = nullptr;
  size_t bytes = 0;
  unsigned char fill;
  /// True when every byte still holds the fill value.
  bool untouched() const;
};

/// Tensors for kFullManifest with B=1, T, H, HV and cu_seqlens [0,..,T].
struct FullArgs {
  FullArgs(int64_t T, int64_t H, int64_t HV, std::vector<int64_t> cu);
  Buffer q, g, cu, o, ws;
  std::vector<int64_t> cuHost;
  TensorArg tensors[4];
  LaunchArgs args() const;
};

} // namespace kda::rt::test

#endif // KDA_RUNTIME_TEST_TESTBUNDLES_H
