//===- HostTensor.cpp - host buffers passed to JIT-compiled code ----------===//

#include "HostTensor.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace kda;

bool kda::getElementKind(mlir::Type type, ElementKind &kind) {
  if (type.isF32())
    kind = ElementKind::F32;
  else if (type.isF16())
    kind = ElementKind::F16;
  else if (type.isBF16())
    kind = ElementKind::BF16;
  else if (type.isInteger(64))
    kind = ElementKind::I64;
  else
    return false;
  return true;
}

static size_t elementBytes(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return 4;
  case ElementKind::F16:
  case ElementKind::BF16:
    return 2;
  case ElementKind::I64:
    return 8;
  }
  return 8;
}

static uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

static float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// float -> bf16 bits, round to nearest even (NaN stays NaN).
static uint16_t toBF16(float f) {
  uint32_t u = floatBits(f);
  if (std::isnan(f))
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

static float fromBF16(uint16_t h) { return bitsFloat(uint32_t(h) << 16); }

/// float -> IEEE half bits, round to nearest even.
static uint16_t toF16(float f) {
  uint32_t u = floatBits(f);
  uint32_t sign = (u >> 16) & 0x8000;
  uint32_t absU = u & 0x7FFFFFFF;
  if (absU >= 0x7F800000) // Inf or NaN
    return static_cast<uint16_t>(sign | 0x7C00 | (absU > 0x7F800000 ? 0x200 : 0));
  if (absU >= 0x477FF000) // rounds to >= 65520: overflow to Inf
    return static_cast<uint16_t>(sign | 0x7C00);
  if (absU < 0x38800000) { // subnormal half (or zero)
    float a = bitsFloat(absU);
    // Scale so that the half subnormal unit (2^-24) becomes 1, round to even.
    float scaled = a * 16777216.0f;
    uint32_t m = static_cast<uint32_t>(std::nearbyint(scaled));
    return static_cast<uint16_t>(sign | m);
  }
  uint32_t exp = ((absU >> 23) - 127 + 15) << 10;
  uint32_t mant = absU & 0x7FFFFF;
  uint32_t half = exp | (mant >> 13);
  uint32_t rest = mant & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return static_cast<uint16_t>(sign | half);
}

static float fromF16(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  if (exp == 0)
    return (sign ? -1.0f : 1.0f) * std::ldexp(float(mant), -24);
  if (exp == 31)
    return bitsFloat(sign | 0x7F800000 | (mant << 13));
  return bitsFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

double kda::roundTo(ElementKind kind, double x) {
  switch (kind) {
  case ElementKind::F32:
    return static_cast<float>(x);
  case ElementKind::F16:
    return fromF16(toF16(static_cast<float>(x)));
  case ElementKind::BF16:
    return fromBF16(toBF16(static_cast<float>(x)));
  case ElementKind::I64:
    return std::nearbyint(x);
  }
  return x;
}

HostTensor::HostTensor(ElementKind kind, std::vector<int64_t> shape)
    : kind(kind), dims(std::move(shape)) {
  numElements = 1;
  for (int64_t d : dims)
    numElements *= d;
  size_t bytes = static_cast<size_t>(numElements) * elementBytes(kind);
  storage.assign((bytes + 7) / 8 + 1, 0);
  int64_t rank = static_cast<int64_t>(dims.size());
  desc.assign(3 + 2 * rank, 0);
  auto ptr = reinterpret_cast<int64_t>(storage.data());
  desc[0] = ptr;
  desc[1] = ptr;
  desc[2] = 0;
  int64_t stride = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    desc[3 + i] = dims[i];
    desc[3 + rank + i] = stride;
    stride *= dims[i];
  }
}

void HostTensor::fill(const std::vector<double> &values) {
  auto *bytes = reinterpret_cast<unsigned char *>(storage.data());
  for (int64_t i = 0; i < numElements; ++i) {
    double v = values[i];
    switch (kind) {
    case ElementKind::F32: {
      float f = static_cast<float>(v);
      std::memcpy(bytes + 4 * i, &f, 4);
      break;
    }
    case ElementKind::F16: {
      uint16_t h = toF16(static_cast<float>(v));
      std::memcpy(bytes + 2 * i, &h, 2);
      break;
    }
    case ElementKind::BF16: {
      uint16_t h = toBF16(static_cast<float>(v));
      std::memcpy(bytes + 2 * i, &h, 2);
      break;
    }
    case ElementKind::I64: {
      int64_t n = static_cast<int64_t>(v);
      std::memcpy(bytes + 8 * i, &n, 8);
      break;
    }
    }
  }
}

void HostTensor::fillAll(double value) {
  fill(std::vector<double>(static_cast<size_t>(numElements), value));
}

std::vector<double> HostTensor::read() const {
  std::vector<double> out(static_cast<size_t>(numElements));
  const auto *bytes = reinterpret_cast<const unsigned char *>(storage.data());
  for (int64_t i = 0; i < numElements; ++i) {
    switch (kind) {
    case ElementKind::F32: {
      float f;
      std::memcpy(&f, bytes + 4 * i, 4);
      out[i] = f;
      break;
    }
    case ElementKind::F16: {
      uint16_t h;
      std::memcpy(&h, bytes + 2 * i, 2);
      out[i] = fromF16(h);
      break;
    }
    case ElementKind::BF16: {
      uint16_t h;
      std::memcpy(&h, bytes + 2 * i, 2);
      out[i] = fromBF16(h);
      break;
    }
    case ElementKind::I64: {
      int64_t n;
      std::memcpy(&n, bytes + 8 * i, 8);
      out[i] = static_cast<double>(n);
      break;
    }
    }
  }
  return out;
}
