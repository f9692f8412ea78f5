//===- Npy.cpp - minimal .npy reader and writer ---------------------------===//

#include "Npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace kda::run {

namespace {

/// The value of `key` in the header dict ("'descr': '<f4'" -> "'<f4'").
bool dictValue(const std::string &header, const std::string &key,
               std::string &value) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    return false;
  at = header.find(':', at);
  if (at == std::string::npos)
    return false;
  ++at;
  while (at < header.size() && header[at] == ' ')
    ++at;
  size_t end = at;
  if (at < header.size() && header[at] == '(') {
    end = header.find(')', at);
    if (end == std::string::npos)
      return false;
    ++end;
  } else if (at < header.size() && header[at] == '\'') {
    end = header.find('\'', at + 1);
    if (end == std::string::npos)
      return false;
    ++end;
  } else {
    while (end < header.size() && header[end] != ',' && header[end] != '}')
      ++end;
  }
  value = header.substr(at, end - at);
  return true;
}

bool parseShape(const std::string &text, std::vector<int64_t> &shape) {
  // "(2, 3)", "(5,)", "()"
  shape.clear();
  size_t i = 1;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ','))
      ++i;
    if (i >= text.size() || text[i] == ')')
      break;
    int64_t v = 0;
    size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9')
      v = v * 10 + (text[i++] - '0');
    if (i == start)
      return false;
    shape.push_back(v);
  }
  return true;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

} // namespace

bool readNpy(const std::string &path, HostTensor &out, std::string &error) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::vector<unsigned char> data;
  unsigned char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0)
    data.insert(data.end(), buffer, buffer + n);
  std::fclose(f);
  auto fail = [&](const std::string &why) {
    error = "'" + path + "': " + why;
    return false;
  };
  if (data.size() < 10 || std::memcmp(data.data(), "\x93NUMPY", 6) != 0)
    return fail("not a .npy file");
  int major = data[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = data[8] | (data[9] << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12)
      return fail("truncated .npy header");
    headerLen = data[8] | (data[9] << 8) | (data[10] << 16) |
                (static_cast<size_t>(data[11]) << 24);
    headerStart = 12;
  } else {
    return fail("unsupported .npy version " + std::to_string(major));
  }
  if (headerStart + headerLen > data.size())
    return fail("truncated .npy header");
  std::string header(reinterpret_cast<const char *>(data.data()) + headerStart,
                     headerLen);
  std::string descr, fortran, shapeText;
  if (!dictValue(header, "descr", descr) ||
      !dictValue(header, "fortran_order", fortran) ||
      !dictValue(header, "shape", shapeText))
    return fail("malformed .npy header");
  std::vector<int64_t> shape;
  if (!parseShape(shapeText, shape))
    return fail("malformed shape " + shapeText);
  if (fortran != "False")
    return fail("Fortran-ordered arrays are not supported");
  if (shape != out.shape())
    return fail("shape " + shapeString(shape) + ", expected " +
                shapeString(out.shape()));
  if (descr.size() != 5 || (descr[1] != '<' && descr[1] != '|' &&
                            descr[1] != '='))
    return fail("unsupported dtype " + descr +
                " (little-endian f2/f4/f8/i1/i2/i4/i8/u1/u2 only)");
  char kind = descr[2];
  int size = descr[3] - '0';
  bool known = (kind == 'f' && (size == 2 || size == 4 || size == 8)) ||
               (kind == 'i' && (size == 1 || size == 2 || size == 4 ||
                                size == 8)) ||
               (kind == 'u' && (size == 1 || size == 2));
  if (!known)
    return fail("unsupported dtype " + descr);
  size_t count = static_cast<size_t>(out.size());
  const unsigned char *p = data.data() + headerStart + headerLen;
  if (data.size() - headerStart - headerLen < count * size)
    return fail("truncated data: " + std::to_string(count) + " elements of " +
                std::to_string(size) + " bytes expected");
  HostTensor half(rt::DType::F16, {1});
  for (size_t i = 0; i < count; ++i, p += size) {
    double v = 0;
    if (kind == 'f' && size == 2) {
      std::memcpy(half.data(), p, 2);
      v = half.get(0);
    } else if (kind == 'f' && size == 4) {
      float x;
      std::memcpy(&x, p, 4);
      v = x;
    } else if (kind == 'f') {
      std::memcpy(&v, p, 8);
    } else if (kind == 'u') {
      if (size == 1) {
        v = *p;
      } else {
        uint16_t x;
        std::memcpy(&x, p, 2);
        v = x;
      }
    } else {
      int64_t x = 0;
      if (size == 1)
        x = static_cast<int8_t>(*p);
      else if (size == 2) {
        int16_t y;
        std::memcpy(&y, p, 2);
        x = y;
      } else if (size == 4) {
        int32_t y;
        std::memcpy(&y, p, 4);
        x = y;
      } else {
        std::memcpy(&x, p, 8);
      }
      v = static_cast<double>(x);
    }
    out.set(static_cast<int64_t>(i), v);
  }
  return true;
}

bool writeNpy(const std::string &path, const HostTensor &t,
              std::string &error) {
  const char *descr = "<f4";
  HostTensor widened;
  const HostTensor *src = &t;
  switch (t.dtype()) {
  case rt::DType::F32:
    break;
  case rt::DType::F16:
    descr = "<f2";
    break;
  case rt::DType::BF16:
    widened = HostTensor(rt::DType::F32, t.shape());
    for (int64_t i = 0; i < t.size(); ++i)
      widened.set(i, t.get(i));
    src = &widened;
    break;
  case rt::DType::I32:
    descr = "<i4";
    break;
  case rt::DType::I64:
    descr = "<i8";
    break;
  }
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " +
                       shapeString(t.shape()) + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                static_cast<unsigned char>(header.size() & 0xFF),
                                static_cast<unsigned char>(header.size() >> 8)};
  bool ok = std::fwrite(preamble, 1, 10, f) == 10 &&
            std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            std::fwrite(src->data(), 1, src->bytes(), f) == src->bytes();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok)
    error = "cannot write '" + path + "': " + std::strerror(errno);
  return ok;
}

} // namespace kda::run
