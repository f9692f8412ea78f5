//===- Types.cpp - tensors and launch arguments of the kda runtime --------===//

#include "kda/Runtime/Types.h"

namespace kda::rt {

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  return "?";
}

bool parseDType(std::string_view name, DType &dtype) {
  for (DType d : {DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64})
    if (name == dtypeName(d)) {
      dtype = d;
      return true;
    }
  return false;
}

size_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::I64:
    return 8;
  }
  return 0;
}

TensorArg TensorArg::make(void *data, DType dtype,
                          std::initializer_list<int64_t> dims) {
  TensorArg t;
  t.data = data;
  t.dtype = dtype;
  for (int64_t d : dims) {
    if (t.rank < kMaxRank)
      t.dims[t.rank] = d;
    ++t.rank;
  }
  return t;
}

int64_t TensorArg::numElements() const {
  int64_t n = 1;
  for (int i = 0; i < rank && i < kMaxRank; ++i) {
    if (dims[i] <= 0)
      return 0;
    if (__builtin_mul_overflow(n, dims[i], &n))
      return 0;
  }
  return n;
}

} // namespace kda::rt
