//===- Types.h - tensors and launch arguments of the kda runtime -*- C++ -*-===//
//
// Element types, the fixed capacities of the launch path, and the arguments
// of one launch: one tensor per entry argument of the bundle, a host copy of
// cu_seqlens, and the caller's workspace.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUNTIME_TYPES_H
#define KDA_RUNTIME_TYPES_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace kda::rt {

/// ABI version of the bundles this runtime reads.
constexpr int kAbiVersion = 1;

/// Element types of bundle arguments (values match kda_dtype in
/// kda_runtime.h).
enum class DType : int { F32 = 0, F16 = 1, BF16 = 2, I32 = 3, I64 = 4 };

/// "f32", "f16", "bf16", "i32" or "i64".
const char *dtypeName(DType dtype);
/// Parses a manifest dtype name; returns false when unknown.
bool parseDType(std::string_view name, DType &dtype);
/// Bytes per element.
size_t dtypeSize(DType dtype);

/// Capacities of the launch path, which works on fixed-size stack arrays
/// (no allocation); a bundle exceeding one is rejected when it is loaded.
constexpr int kMaxRank = 8;
constexpr int kMaxArgs = 32;
constexpr int kMaxSymbols = 32;
constexpr int kMaxWorkspaces = 16;
constexpr int kMaxKernels = 64;
/// 64-bit kernel parameters per kernel (8 KiB; CUDA 12.1+ allows 32 KiB).
constexpr int kMaxKernelParams = 1024;

/// Every tensor pointer must be a multiple of this.
constexpr size_t kTensorAlignment = 16;
/// The workspace pointer and each workspace offset are multiples of this.
constexpr size_t kWorkspaceAlignment = 256;

/// One tensor argument: a device pointer (a host pointer for the CPU build)
/// with its element type and shape.
struct TensorArg {
  /// Address of element 0. May be null only when the tensor is empty.
  void *data = nullptr;
  /// Element type; must equal the bundle's.
  DType dtype = DType::F32;
  /// Number of dimensions; must equal the bundle's.
  int rank = 0;
  /// Dimension sizes (the first `rank` entries are used).
  int64_t dims[kMaxRank] = {};
  /// Optional strides in elements (`rank` entries); null means dense
  /// row-major. When given they must be the dense row-major strides (strides
  /// of dimensions of size 1 are not checked).
  const int64_t *strides = nullptr;

  /// A dense tensor.
  static TensorArg make(void *data, DType dtype,
                        std::initializer_list<int64_t> dims);
  /// Number of elements (product of the dims; 0 if any is <= 0).
  int64_t numElements() const;
};

/// Arguments of one launch.
struct LaunchArgs {
  /// One tensor per manifest `arg`, in order (inputs, then outputs).
  const TensorArg *tensors = nullptr;
  size_t numTensors = 0;
  /// Host copy of cu_seqlens (like fla's cu_seqlens_cpu), required when the
  /// bundle takes cu_seqlens: validated before launch. It must hold the same
  /// values as the device tensor, which the runtime cannot read.
  const int64_t *cuSeqlensHost = nullptr;
  size_t numCuSeqlensHost = 0;
  /// Scratch memory of at least Program::workspaceSize bytes, 256-byte
  /// aligned; may be null when the plan needs none.
  void *workspace = nullptr;
  size_t workspaceBytes = 0;
};

} // namespace kda::rt

#endif // KDA_RUNTIME_TYPES_H
