/*===- kda_forward.h - C API of the whole KDA forward -------------*- C -*-===*\
|*                                                                            *|
|* fla's chunk_kda forward on a bundle compiled from kda.chunk_fwd (key      *|
|* program=chunk_fwd): the tensors are passed by role instead of in manifest *|
|* order, and the bundle's optional arguments (a_log, dt_bias,               *|
|* initial_state, cu_seqlens, final_state) are matched against what the     *|
|* caller passes. A tensor with rank 0 is "not passed". Device pointers for  *|
|* kda_forward, host pointers for kda_forward_cpu. Errors as in              *|
|* kda_runtime.h: a kda_status and kda_last_error().                         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef KDA_FORWARD_H
#define KDA_FORWARD_H

#include "kda_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The tensors of one forward. Shapes as in fla's chunk_kda:
 *  q, k [B,T,H,K]; v [B,T,HV,V]; g [B,T,HV,K]; beta [B,T,HV];
 *  a_log [HV]; dt_bias [HV,K] or [HV*K]; initial_state and final_state
 *  [N,HV,K,V] ([N,HV,V,K] with state_layout=vk), fp32; cu_seqlens [N+1]
 *  int64 (then B = 1); o [B,T,HV,V]. */
typedef struct kda_forward_tensors {
  kda_tensor q, k, v, g, beta;
  kda_tensor a_log, dt_bias;    /* rank 0: not passed */
  kda_tensor initial_state;     /* rank 0: not passed (zeros) */
  kda_tensor cu_seqlens;        /* rank 0: fixed-length batch */
  kda_tensor o;                 /* output */
  kda_tensor final_state;       /* output; rank 0: not passed */
  const int64_t *cu_seqlens_host; /* host copy of cu_seqlens, if passed */
} kda_forward_tensors;

/** Workspace bytes kda_forward needs for these shapes (the intermediates
 *  of the launch plan: G, Aqk, Akkd, M, w, u, kg, h, v_new, ...). */
kda_status kda_forward_workspace_size(const kda_program *program,
                                      const kda_forward_tensors *tensors,
                                      size_t *bytes);

/** Validates everything, then launches the forward's kernels on `stream`
 *  (a CUstream / cudaStream_t; no allocation, capturable in a CUDA graph).
 *  `workspace` holds at least kda_forward_workspace_size bytes, 256-byte
 *  aligned. */
kda_status kda_forward(const kda_program *program,
                       const kda_forward_tensors *tensors, void *workspace,
                       size_t workspace_bytes, void *stream);

/** The same on the bundle's CPU build, with host tensors. */
kda_status kda_forward_cpu(const kda_program *program,
                           const kda_forward_tensors *tensors,
                           void *workspace, size_t workspace_bytes);

/** Loads the default bundle `name`, compiled with the library:
 *  "fwd_k128_bf16_default", "fwd_k64_bf16_default" (fla's default flags: a
 *  precomputed fp32 log gate, q/k normalized and beta activated by the
 *  caller) and, when the library was built with libdevice,
 *  "fwd_k128_bf16_fused", "fwd_k64_bf16_fused" (gate with lower bound -5,
 *  l2norm and beta sigmoid in the kernel, safe_gate, states in layout vk);
 *  each also as "<name>_varlen", which takes cu_seqlens (B = 1).
 *  All take bf16 q, k, v, beta, fp32 initial_state and final_state, with
 *  any B, T, H and HV. KDA_ERROR_INVALID_ARGUMENT names the ones there are
 *  when `name` is not one of them. */
kda_status kda_forward_default_program(const char *name,
                                       kda_program **program);

/** The names of the default bundles, comma-separated ("" if none). */
const char *kda_forward_default_names(void);

#ifdef __cplusplus
}
#endif

#endif /* KDA_FORWARD_H */
