//===- HostTensor.cpp - typed host buffers of kda-run ---------------------===//

#include "HostTensor.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>

namespace kda::run {

namespace {

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t encodeBF16(float f) {
  uint32_t u = bitsOf(f);
  if ((u & 0x7FFFFFFF) > 0x7F800000) // NaN: keep it quiet
    return static_cast<uint16_t>((u >> 16) | 0x0040);
  uint32_t lsb = (u >> 16) & 1;
  u += 0x7FFF + lsb; // round to nearest even (overflows to Inf as it should)
  return static_cast<uint16_t>(u >> 16);
}

float decodeBF16(uint16_t h) { return floatOf(static_cast<uint32_t>(h) << 16); }

uint16_t encodeF16(float f) {
  uint32_t u = bitsOf(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  uint32_t a = u & 0x7FFFFFFF;
  if (a > 0x7F800000)
    return static_cast<uint16_t>(sign | 0x7E00); // NaN
  if (a == 0x7F800000)
    return static_cast<uint16_t>(sign | 0x7C00); // Inf
  float mag = floatOf(a);
  if (mag >= 65520.0f) // rounds past the largest half (65504)
    return static_cast<uint16_t>(sign | 0x7C00);
  if (mag < 6.103515625e-05f) {
    // Subnormal half: multiples of 2^-24, rounded to nearest even.
    float units = mag * 16777216.0f;
    return static_cast<uint16_t>(sign |
                                 static_cast<uint16_t>(std::nearbyint(units)));
  }
  int32_t exp = static_cast<int32_t>(a >> 23) - 127 + 15;
  uint32_t mant = a & 0x7FFFFF;
  uint32_t half = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is right
  return static_cast<uint16_t>(sign | half);
}

float decodeF16(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31)
    return floatOf(sign | 0x7F800000 | (mant << 13));
  return floatOf(sign | ((exp + 112) << 23) | (mant << 13));
}

/// Element `i` of an array of T at `p`.
template <typename T> T load(const unsigned char *p, int64_t i) {
  T value;
  std::memcpy(&value, p + sizeof(T) * i, sizeof(T));
  return value;
}

/// Stores `value` as element `i` of an array of T at `p`.
template <typename T> void store(unsigned char *p, int64_t i, T value) {
  std::memcpy(p + sizeof(T) * i, &value, sizeof(T));
}

} // namespace

double roundTo(rt::DType dtype, double x) {
  switch (dtype) {
  case rt::DType::F32:
    return static_cast<float>(x);
  case rt::DType::BF16:
    return decodeBF16(encodeBF16(static_cast<float>(x)));
  case rt::DType::F16:
    return decodeF16(encodeF16(static_cast<float>(x)));
  case rt::DType::I32:
  case rt::DType::I64:
    return std::trunc(x);
  }
  return x;
}

void HostTensor::Free::operator()(void *p) const { std::free(p); }

HostTensor::HostTensor(rt::DType dtype, std::vector<int64_t> shape)
    : type(dtype), dims(std::move(shape)) {
  count = 1;
  for (int64_t d : dims)
    count *= d;
  size_t n = bytes();
  // 64-byte aligned, at least one line so that data() is never null.
  storage.reset(std::aligned_alloc(64, (n + 63) / 64 * 64 + 64));
  if (!storage)
    throw std::bad_alloc();
  std::memset(storage.get(), 0, n);
}

double HostTensor::get(int64_t i) const {
  const auto *p = static_cast<const unsigned char *>(storage.get());
  switch (type) {
  case rt::DType::F32:
    return load<float>(p, i);
  case rt::DType::BF16:
    return decodeBF16(load<uint16_t>(p, i));
  case rt::DType::F16:
    return decodeF16(load<uint16_t>(p, i));
  case rt::DType::I32:
    return load<int32_t>(p, i);
  case rt::DType::I64:
    return static_cast<double>(load<int64_t>(p, i));
  }
  return 0;
}

void HostTensor::set(int64_t i, double x) {
  auto *p = static_cast<unsigned char *>(storage.get());
  switch (type) {
  case rt::DType::F32:
    return store(p, i, static_cast<float>(x));
  case rt::DType::BF16:
    return store(p, i, encodeBF16(static_cast<float>(x)));
  case rt::DType::F16:
    return store(p, i, encodeF16(static_cast<float>(x)));
  case rt::DType::I32:
    return store(p, i, static_cast<int32_t>(x));
  case rt::DType::I64:
    return store(p, i, static_cast<int64_t>(x));
  }
}

std::vector<double> HostTensor::getAll() const {
  std::vector<double> values(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    values[i] = get(i);
  return values;
}

void HostTensor::setAll(const std::vector<double> &values) {
  for (int64_t i = 0; i < count; ++i)
    set(i, values[i]);
}

void HostTensor::fillBytes(unsigned char byte) {
  std::memset(storage.get(), byte, bytes());
}

std::string HostTensor::shapeText() const {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i)
      s += 'x';
    s += std::to_string(dims[i]);
  }
  return s;
}

rt::TensorArg HostTensor::arg(void *pointer) {
  rt::TensorArg t;
  t.data = pointer ? pointer : storage.get();
  t.dtype = type;
  t.rank = static_cast<int>(dims.size());
  for (int i = 0; i < t.rank && i < rt::kMaxRank; ++i)
    t.dims[i] = dims[i];
  return t;
}

std::vector<double> gatherHead(const HostTensor &t, int64_t begin,
                               int64_t count, int64_t head, int64_t heads,
                               int64_t width) {
  std::vector<double> rows(static_cast<size_t>(count * width));
  for (int64_t r = 0; r < count; ++r)
    for (int64_t d = 0; d < width; ++d)
      rows[r * width + d] = t.get(((begin + r) * heads + head) * width + d);
  return rows;
}

} // namespace kda::run
