//===- DriverCheck.cpp - the driver declarations against cuda.h -----------===//
//
// Compiled only when cuda.h is available at build time: checks that every
// entry point of KDA_CUDA_DRIVER_FUNCTIONS has the arity and parameter sizes
// of the toolkit's declaration, and that the constants have the toolkit's
// values. Nothing here runs.
//
//===----------------------------------------------------------------------===//

#include "kda/Runtime/Driver.h"

#include <cuda.h>

#include <type_traits>

namespace kda::rt {
namespace {

template <typename A, typename B> struct SameShape : std::false_type {};
template <typename RA, typename... A, typename RB, typename... B>
struct SameShape<RA (*)(A...), RB (*)(B...)> {
  static constexpr bool value =
      sizeof...(A) == sizeof...(B) && sizeof(RA) == sizeof(RB) &&
      ((sizeof(A) == sizeof(B)) && ... && true);
};

// cuda.h maps some names to versioned symbols with macros (cuMemAlloc ->
// cuMemAlloc_v2); the names used here are the exported symbols themselves.
#define KDA_CU_CHECK(name, required, params)                                   \
  static_assert(SameShape<decltype(&::name), cu::PFN_##name>::value,          \
                #name " does not match cuda.h");
KDA_CUDA_DRIVER_FUNCTIONS(KDA_CU_CHECK)
#undef KDA_CU_CHECK

static_assert(sizeof(::CUdeviceptr) == sizeof(cu::CUdeviceptr), "");
static_assert(sizeof(::CUresult) == sizeof(cu::CUresult), "");
static_assert(sizeof(::CUjit_option) == sizeof(cu::CUjit_option), "");
static_assert(::CUDA_ERROR_INVALID_VALUE == cu::CUDA_ERROR_INVALID_VALUE, "");
static_assert(::CUDA_ERROR_NOT_INITIALIZED == cu::CUDA_ERROR_NOT_INITIALIZED,
              "");
static_assert(::CUDA_ERROR_STUB_LIBRARY == cu::CUDA_ERROR_STUB_LIBRARY, "");
static_assert(::CUDA_ERROR_NO_DEVICE == cu::CUDA_ERROR_NO_DEVICE, "");
static_assert(::CUDA_ERROR_INVALID_PTX == cu::CUDA_ERROR_INVALID_PTX, "");
static_assert(::CUDA_ERROR_NOT_FOUND == cu::CUDA_ERROR_NOT_FOUND, "");
static_assert(::CU_JIT_INFO_LOG_BUFFER == cu::CU_JIT_INFO_LOG_BUFFER, "");
static_assert(::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES ==
                  cu::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
              "");
static_assert(::CU_JIT_ERROR_LOG_BUFFER == cu::CU_JIT_ERROR_LOG_BUFFER, "");
static_assert(::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES ==
                  cu::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
              "");
static_assert(::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ==
                  cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
              "");
static_assert(::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE ==
                  cu::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
              "");
static_assert(::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ==
                  cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
              "");
static_assert(::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ==
                  cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
              "");
static_assert(::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN ==
                  cu::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
              "");
static_assert(::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ==
                  cu::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
              "");
static_assert(::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES ==
                  cu::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
              "");
static_assert(::CU_FUNC_ATTRIBUTE_NUM_REGS == cu::CU_FUNC_ATTRIBUTE_NUM_REGS,
              "");
static_assert(::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ==
                  cu::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              "");
static_assert(::CU_POINTER_ATTRIBUTE_MEMORY_TYPE ==
                  cu::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
              "");
static_assert(::CU_MEMORYTYPE_DEVICE == cu::CU_MEMORYTYPE_DEVICE, "");
static_assert(::CU_STREAM_NON_BLOCKING == cu::CU_STREAM_NON_BLOCKING, "");
static_assert(::CU_EVENT_DEFAULT == cu::CU_EVENT_DEFAULT, "");
static_assert(::CU_STREAM_CAPTURE_MODE_GLOBAL ==
                  cu::CU_STREAM_CAPTURE_MODE_GLOBAL,
              "");
static_assert(::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL ==
                  cu::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
              "");

} // namespace
} // namespace kda::rt
