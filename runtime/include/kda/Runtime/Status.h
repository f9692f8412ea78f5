//===- Status.h - errors of the kda runtime ----------------------*- C++ -*-===//
//
// Every runtime call returns a Status: ok, or an error code with a one-line
// human message and, for failed driver calls, the CUDA error.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUNTIME_STATUS_H
#define KDA_RUNTIME_STATUS_H

#include <memory>
#include <string>

namespace kda::rt {

/// Error classes (values match kda_status in kda_runtime.h).
enum class ErrorCode : int {
  Ok = 0,
  /// Tensors, shapes, pointers, cu_seqlens or workspace rejected.
  InvalidArgument = 1,
  /// The bundle file or its manifest is malformed.
  InvalidBundle = 2,
  /// The bundle's ABI version is not the runtime's.
  UnsupportedAbi = 3,
  /// libcuda.so.1 (or $KDA_CUDA_DRIVER) cannot be loaded or is not a driver.
  DriverNotFound = 4,
  /// The driver loaded but reports no usable device.
  NoDevice = 5,
  /// A driver call failed (the CUDA error is attached).
  CudaError = 6,
  /// A file could not be read or written.
  IoError = 7,
  /// The request is valid but not supported (no cpu section, device too old).
  Unsupported = 8,
  /// An unexpected internal failure (out of host memory).
  Internal = 9,
};

/// "ok", "invalid argument", ...
const char *errorCodeName(ErrorCode code);

/// Ok, or an error. Ok statuses hold nothing and never allocate.
class [[nodiscard]] Status {
public:
  /// Ok.
  Status() = default;
  static Status ok() { return Status(); }
  /// An error with a one-line message.
  static Status error(ErrorCode code, std::string message);
  /// A failed driver call: `cudaResult` is its CUresult, `cudaName` the
  /// CUDA error name (CUDA_ERROR_...); `message` says what failed.
  static Status cuda(int cudaResult, std::string cudaName,
                     std::string message);

  bool isOk() const { return !state; }
  explicit operator bool() const { return isOk(); }
  ErrorCode code() const { return state ? state->code : ErrorCode::Ok; }
  /// The human message ("" when ok).
  const std::string &message() const;
  /// The CUresult of a failed driver call, else 0.
  int cudaResult() const { return state ? state->cudaResult : 0; }
  /// The CUDA error name of a failed driver call, else "".
  const std::string &cudaName() const;
  /// The message (already includes the CUDA error name when there is one).
  std::string toString() const { return isOk() ? "ok" : message(); }
  /// A copy with `prefix` put before the message.
  Status withPrefix(const std::string &prefix) const;

private:
  struct State {
    ErrorCode code;
    std::string message;
    int cudaResult;
    std::string cudaName;
  };
  std::shared_ptr<const State> state;
};

} // namespace kda::rt

#endif // KDA_RUNTIME_STATUS_H
