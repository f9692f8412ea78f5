/*===- FakeCpuSection.c - a stand-in for a bundle's cpu section ----------===*\
|*                                                                            *|
|* Exports _mlir_ciface_test_scale(x, y) with the calling convention of a     *|
|* bundle's CPU build: one pointer per argument, each to a memref descriptor. *|
|* y = 2 * x + 1 over f32 tensors of rank 3.                                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include <stdint.h>

typedef struct {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[3];
  int64_t strides[3];
} Memref3;

__attribute__((visibility("default"))) void
_mlir_ciface_test_scale(Memref3 *x, Memref3 *y) {
  int64_t n = x->sizes[0] * x->sizes[1] * x->sizes[2];
  for (int64_t i = 0; i < n; ++i)
    y->aligned[y->offset + i] = 2.0f * x->aligned[x->offset + i] + 1.0f;
}
