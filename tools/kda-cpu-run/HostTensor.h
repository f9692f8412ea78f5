//===- HostTensor.h - host buffers passed to JIT-compiled code --*- C++ -*-===//
//
// A dense row-major host tensor of a given MLIR element type, with the
// strided memref descriptor the MLIR C interface expects.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_TOOLS_KDACPURUN_HOSTTENSOR_H
#define KDA_TOOLS_KDACPURUN_HOSTTENSOR_H

#include "mlir/IR/Types.h"

#include <cstdint>
#include <vector>

namespace kda {

/// Element types a host tensor can hold.
enum class ElementKind { F32, F16, BF16, I64 };

/// Maps an MLIR element type to an ElementKind; returns false if unsupported.
bool getElementKind(mlir::Type type, ElementKind &kind);

/// Rounds `x` to the precision of `kind` (float types only).
double roundTo(ElementKind kind, double x);

/// A dense tensor in host memory plus its memref descriptor.
class HostTensor {
public:
  HostTensor(ElementKind kind, std::vector<int64_t> shape);

  /// Number of elements.
  int64_t size() const { return numElements; }
  const std::vector<int64_t> &shape() const { return dims; }

  /// Stores `values` (rounded to the element type).
  void fill(const std::vector<double> &values);
  /// Sets every element to `value` (NaN marks "never written").
  void fillAll(double value);
  /// Reads every element back as double.
  std::vector<double> read() const;

  /// Pointer to the memref descriptor {alloc, aligned, offset, sizes,
  /// strides} passed to `_mlir_ciface_` functions.
  void *descriptor() { return desc.data(); }

private:
  ElementKind kind;
  std::vector<int64_t> dims;
  int64_t numElements;
  std::vector<uint64_t> storage; // 8-byte aligned raw element storage
  std::vector<int64_t> desc;
};

} // namespace kda

#endif // KDA_TOOLS_KDACPURUN_HOSTTENSOR_H
