/*===- CHeader.c - kda_runtime.h compiles as C ---------------------------===*\
|*                                                                            *|
|* The C API headers must be plain C: this file includes them in a C          *|
|* translation unit of kda-runtime-test and uses their types.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "kda_forward.h"
#include "kda_runtime.h"

int kda_test_c_header(void);

int kda_test_c_header(void) {
  kda_tensor t = {0, KDA_BF16, 1, {4, 0, 0, 0, 0, 0, 0, 0}, 0};
  kda_launch_args a = {&t, 1, 0, 0, 0, 0};
  kda_status s = KDA_OK;
  kda_forward_tensors f = {0};
  unsigned flags = KDA_LOAD_REFUSE_CPU | KDA_LOAD_FORCE_PTX;
  (void)f;
  (void)flags;
  return (int)a.num_tensors + (int)t.rank + (int)s + KDA_MAX_RANK +
         KDA_RUNTIME_ABI_VERSION;
}
