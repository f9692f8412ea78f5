/*===- kda_runtime.h - C API of the kda runtime -------------------*- C -*-===*\
|*                                                                            *|
|* Loads kernel bundles (.kdab, ABI version 1) and launches them through the  *|
|* CUDA driver, which is loaded at run time (libcuda.so.1, or the library     *|
|* named by $KDA_CUDA_DRIVER). Every function returns a kda_status; on error, *|
|* kda_last_error() gives a one-line message for the calling thread. No       *|
|* function aborts, exits or throws. All functions are thread-safe.           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef KDA_RUNTIME_H
#define KDA_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bundle ABI version implemented by this runtime. */
#define KDA_RUNTIME_ABI_VERSION 1
/** Largest tensor rank. */
#define KDA_MAX_RANK 8

typedef enum kda_status {
  KDA_OK = 0,
  KDA_ERROR_INVALID_ARGUMENT = 1, /* tensors, cu_seqlens, workspace, ... */
  KDA_ERROR_INVALID_BUNDLE = 2,   /* malformed bundle or manifest */
  KDA_ERROR_UNSUPPORTED_ABI = 3,  /* bundle ABI version != 1 */
  KDA_ERROR_DRIVER_NOT_FOUND = 4, /* no usable libcuda.so.1 */
  KDA_ERROR_NO_DEVICE = 5,        /* the driver reports no device */
  KDA_ERROR_CUDA = 6,             /* a driver call failed */
  KDA_ERROR_IO = 7,               /* a file could not be read */
  KDA_ERROR_UNSUPPORTED = 8,      /* e.g. no cpu section, device too old */
  KDA_ERROR_INTERNAL = 9          /* e.g. out of host memory */
} kda_status;

typedef enum kda_dtype {
  KDA_F32 = 0,
  KDA_F16 = 1,
  KDA_BF16 = 2,
  KDA_I32 = 3,
  KDA_I64 = 4
} kda_dtype;

/** One tensor: a device pointer (host pointer for kda_program_run_cpu). */
typedef struct kda_tensor {
  void *data;             /* element 0; null only for an empty tensor */
  int32_t dtype;          /* a kda_dtype */
  int32_t rank;           /* number of dims */
  int64_t dims[KDA_MAX_RANK];
  const int64_t *strides; /* null: dense row-major; else must be those */
} kda_tensor;

/** Arguments of one launch. */
typedef struct kda_launch_args {
  const kda_tensor *tensors; /* one per bundle argument, in manifest order */
  size_t num_tensors;
  const int64_t *cu_seqlens_host; /* host copy of cu_seqlens, when taken */
  size_t num_cu_seqlens_host;
  void *workspace; /* >= kda_program_workspace_size bytes, 256-aligned */
  size_t workspace_bytes;
} kda_launch_args;

typedef struct kda_program kda_program;

/** The message of the calling thread's last failed call ("" if none). */
const char *kda_last_error(void);
/** "ok", "invalid argument", ... */
const char *kda_status_name(kda_status status);

/** Loads a bundle file. The driver is not touched. */
kda_status kda_program_load(const char *path, kda_program **program);
/** Loads a bundle from memory (copied). */
kda_status kda_program_load_memory(const void *data, size_t size,
                                   kda_program **program);
/** Flags of kda_program_load_flags and kda_program_load_memory_flags. */
/** Never load the bundle's CPU build: a bundle's cpu section is native code
 *  that runs when it is loaded (dlopen runs its initializers), and its
 *  checksum stops accidents, not an attacker. kda_program_run_cpu then fails
 *  with KDA_ERROR_UNSUPPORTED and nothing is loaded. The environment
 *  variable KDA_RUNTIME_NO_CPU=1 does the same for every program. */
#define KDA_LOAD_REFUSE_CPU 0x1u
/** Load the PTX even when the bundle has a cubin for the device
 *  ($KDA_RUNTIME_FORCE_PTX=1 does the same). */
#define KDA_LOAD_FORCE_PTX 0x2u

/** kda_program_load with KDA_LOAD_* flags (others are an invalid argument). */
kda_status kda_program_load_flags(const char *path, unsigned flags,
                                  kda_program **program);
/** kda_program_load_memory with KDA_LOAD_* flags. */
kda_status kda_program_load_memory_flags(const void *data, size_t size,
                                         unsigned flags,
                                         kda_program **program);
/** Unloads its modules and frees it (null is ignored). */
void kda_program_destroy(kda_program *program);

/** The manifest's entry name. */
const char *kda_program_entry(const kda_program *program);
/** The value of specialization key `name`, or null. */
const char *kda_program_key(const kda_program *program, const char *name);
/** Number of entry arguments (inputs first, then outputs). */
int kda_program_num_args(const kda_program *program);
/** Number of input arguments. */
int kda_program_num_inputs(const kda_program *program);
/** Name of argument `index`, or null. */
const char *kda_program_arg_name(const kda_program *program, int index);
/** Index of the argument named `name`, or -1. */
int kda_program_arg_index(const kda_program *program, const char *name);
/** dtype and rank of argument `index`; KDA_ERROR_INVALID_ARGUMENT if none. */
kda_status kda_program_arg_info(const kda_program *program, int index,
                                int32_t *dtype, int32_t *rank);

/** Workspace bytes a launch with these tensor shapes needs. */
kda_status kda_program_workspace_size(const kda_program *program,
                                      const kda_tensor *tensors,
                                      size_t num_tensors, size_t *bytes);
/** Loads the module into the current CUDA context (call before capturing
 *  a launch into a CUDA graph). */
kda_status kda_program_prepare(const kda_program *program);
/** Validates and launches on `stream` (a CUstream / cudaStream_t). */
kda_status kda_program_launch(const kda_program *program,
                              const kda_launch_args *args, void *stream);
/** Runs the bundle's CPU build on host tensors. */
kda_status kda_program_run_cpu(const kda_program *program,
                               const kda_launch_args *args);

#ifdef __cplusplus
}
#endif

#endif /* KDA_RUNTIME_H */
