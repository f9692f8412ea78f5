//===- Status.cpp - errors of the kda runtime -----------------------------===//

#include "kda/Runtime/Status.h"

namespace kda::rt {

const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::Ok:
    return "ok";
  case ErrorCode::InvalidArgument:
    return "invalid argument";
  case ErrorCode::InvalidBundle:
    return "invalid bundle";
  case ErrorCode::UnsupportedAbi:
    return "unsupported ABI version";
  case ErrorCode::DriverNotFound:
    return "CUDA driver not found";
  case ErrorCode::NoDevice:
    return "no CUDA device";
  case ErrorCode::CudaError:
    return "CUDA error";
  case ErrorCode::IoError:
    return "I/O error";
  case ErrorCode::Unsupported:
    return "unsupported";
  case ErrorCode::Internal:
    return "internal error";
  }
  return "unknown error";
}

static const std::string &emptyString() {
  static const std::string empty;
  return empty;
}

Status Status::error(ErrorCode code, std::string message) {
  Status s;
  s.state = std::make_shared<const State>(
      State{code, std::move(message), 0, std::string()});
  return s;
}

Status Status::cuda(int cudaResult, std::string cudaName,
                    std::string message) {
  Status s;
  s.state = std::make_shared<const State>(State{
      ErrorCode::CudaError, std::move(message), cudaResult,
      std::move(cudaName)});
  return s;
}

const std::string &Status::message() const {
  return state ? state->message : emptyString();
}

const std::string &Status::cudaName() const {
  return state ? state->cudaName : emptyString();
}

Status Status::withPrefix(const std::string &prefix) const {
  if (!state)
    return *this;
  Status s;
  s.state = std::make_shared<const State>(State{
      state->code, prefix + state->message, state->cudaResult,
      state->cudaName});
  return s;
}

} // namespace kda::rt
