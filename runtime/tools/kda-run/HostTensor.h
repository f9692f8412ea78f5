//===- HostTensor.h - typed host buffers of kda-run --------------*- C++ -*-===//
//
// A dense row-major tensor in host memory of one of the bundle dtypes, with
// element access through double (stores round to nearest even).
//
//===----------------------------------------------------------------------===//

#ifndef KDA_RUN_HOSTTENSOR_H
#define KDA_RUN_HOSTTENSOR_H

#include "kda/Runtime/Types.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kda::run {

/// `x` rounded to the precision of `dtype` (to nearest even; integers
/// truncate toward zero).
double roundTo(rt::DType dtype, double x);

/// A dense row-major tensor in host memory.
class HostTensor {
public:
  HostTensor() = default;
  HostTensor(rt::DType dtype, std::vector<int64_t> shape);

  rt::DType dtype() const { return type; }
  const std::vector<int64_t> &shape() const { return dims; }
  int64_t size() const { return count; }
  size_t bytes() const { return count * rt::dtypeSize(type); }
  void *data() { return storage.get(); }
  const void *data() const { return storage.get(); }

  /// Element i as double.
  double get(int64_t i) const;
  /// Stores x rounded to the dtype.
  void set(int64_t i, double x);
  /// Every element as double, in order.
  std::vector<double> getAll() const;
  /// Stores values[i] (rounded) as element i, for every element; `values`
  /// holds at least size() of them.
  void setAll(const std::vector<double> &values);
  /// Sets every byte (0xFF makes every float element NaN).
  void fillBytes(unsigned char byte);
  /// "1x300x4x128".
  std::string shapeText() const;
  /// A TensorArg over `pointer` (this tensor's data when null).
  rt::TensorArg arg(void *pointer = nullptr);

private:
  struct Free {
    void operator()(void *p) const;
  };
  rt::DType type = rt::DType::F32;
  std::vector<int64_t> dims;
  int64_t count = 0;
  std::unique_ptr<void, Free> storage;
};

/// Rows [begin, begin + count) of head `head` of `t`, viewed as
/// [rows, heads, width], as a dense [count, width] vector.
std::vector<double> gatherHead(const HostTensor &t, int64_t begin,
                               int64_t count, int64_t head, int64_t heads,
                               int64_t width);

} // namespace kda::run

#endif // KDA_RUN_HOSTTENSOR_H
