//===- main.cpp - run one KDA forward through the installed runtime -------===//
//
//   kda-embed (BUNDLE | --default NAME) [--seq-len T] [--heads H]
//             [--value-heads HV] [--cpu]
//
// BUNDLE is compiled from kda.chunk_fwd (kda-translate --kda-to-bundle);
// --default NAME takes one of the bundles compiled into the library
// (kda_forward_default_names()). K and V come from the bundle's key, and so
// do H and HV when the bundle fixes them (else --heads / --value-heads,
// default 4); B = 1. Inputs are
// deterministic pseudo-random values like fla's tests (unit q and k rows,
// gates in (-1, 0), beta in (0, 1)); the program prints the time of the
// forward and a checksum of o. On the GPU it allocates with the CUDA
// runtime; with --cpu (or without the CUDA runtime) it runs the bundle's
// CPU build on host memory.
//
//===----------------------------------------------------------------------===//

#include "kda_forward.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef KDA_EMBED_HAVE_CUDART
#include <cuda_runtime.h>
#endif

namespace {

/// The bundle's integer key `name`, or `fallback`.
int64_t keyInt(const kda_program *p, const char *name, int64_t fallback) {
  const char *value = kda_program_key(p, name);
  return value ? std::atoll(value) : fallback;
}

bool keyFlag(const kda_program *p, const char *name) {
  const char *value = kda_program_key(p, name);
  return value && std::strcmp(value, "1") == 0;
}

/// Host storage of one tensor in the argument's dtype.
struct HostTensor {
  kda_tensor desc{};
  std::vector<unsigned char> bytes;
};

size_t dtypeSize(int32_t dtype) {
  return dtype == KDA_F32 || dtype == KDA_I32 ? 4 : dtype == KDA_I64 ? 8 : 2;
}

/// Stores `x` as element `i` of a float tensor of `dtype`.
void storeFloat(HostTensor &t, int64_t i, float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  if (t.desc.dtype == KDA_F32) {
    std::memcpy(&t.bytes[i * 4], &x, 4);
  } else if (t.desc.dtype == KDA_BF16) {
    uint16_t h = static_cast<uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
    std::memcpy(&t.bytes[i * 2], &h, 2);
  } else { // f16, values here are small and normal
    uint32_t sign = (bits >> 16) & 0x8000;
    int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xFF) - 127 + 15;
    uint32_t mantissa = (bits >> 13) & 0x3FF;
    uint16_t h = exponent <= 0 ? static_cast<uint16_t>(sign)
                               : static_cast<uint16_t>(sign | (exponent << 10) |
                                                       mantissa);
    std::memcpy(&t.bytes[i * 2], &h, 2);
  }
}

float loadFloat(const HostTensor &t, int64_t i) {
  uint32_t bits = 0;
  if (t.desc.dtype == KDA_F32) {
    float x;
    std::memcpy(&x, &t.bytes[i * 4], 4);
    return x;
  }
  uint16_t h;
  std::memcpy(&h, &t.bytes[i * 2], 2);
  if (t.desc.dtype == KDA_BF16) {
    bits = static_cast<uint32_t>(h) << 16;
  } else {
    uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1F,
             mantissa = h & 0x3FF;
    bits = exponent == 0 ? sign
                         : sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  float x;
  std::memcpy(&x, &bits, 4);
  return x;
}

/// A tensor of the bundle's argument `name` with `dims`, or rank 0.
HostTensor makeTensor(const kda_program *p, const char *name,
                      std::vector<int64_t> dims) {
  HostTensor t;
  int index = kda_program_arg_index(p, name);
  if (index < 0)
    return t;
  int32_t dtype = 0, rank = 0;
  kda_program_arg_info(p, index, &dtype, &rank);
  t.desc.dtype = dtype;
  t.desc.rank = static_cast<int32_t>(dims.size());
  int64_t count = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    t.desc.dims[d] = dims[d];
    count *= dims[d];
  }
  t.bytes.assign(static_cast<size_t>(count) * dtypeSize(dtype), 0);
  return t;
}

int64_t elements(const HostTensor &t) {
  return t.desc.rank ? static_cast<int64_t>(t.bytes.size() / dtypeSize(t.desc.dtype)) : 0;
}

/// Deterministic uniform numbers in [0, 1).
struct Lcg {
  uint64_t state = 42;
  float next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>((state >> 40) & 0xFFFFFF) / 16777216.0f;
  }
};

int fail(const char *what) {
  std::fprintf(stderr, "kda-embed: %s: %s\n", what, kda_last_error());
  return 1;
}

#ifdef KDA_EMBED_HAVE_CUDART
int failCuda(const char *what, cudaError_t error) {
  std::fprintf(stderr, "kda-embed: %s: %s (run with --cpu on a machine "
                       "without a GPU)\n",
               what, cudaGetErrorString(error));
  return 1;
}
#endif

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: kda-embed (BUNDLE | --default NAME) "
                         "[--seq-len T] [--heads H] [--value-heads HV] "
                         "[--cpu]\n(default bundles: %s)\n",
                 kda_forward_default_names());
    return 2;
  }
  int64_t T = 256, heads = 0, valueHeads = 0;
  bool cpu = false;
  const char *bundle = nullptr, *defaultName = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--cpu"))
      cpu = true;
    else if (!std::strcmp(argv[i], "--seq-len") && i + 1 < argc)
      T = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--heads") && i + 1 < argc)
      heads = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--value-heads") && i + 1 < argc)
      valueHeads = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--default") && i + 1 < argc)
      defaultName = argv[++i];
    else if (argv[i][0] != '-' && !bundle)
      bundle = argv[i];
    else {
      std::fprintf(stderr, "kda-embed: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
#ifndef KDA_EMBED_HAVE_CUDART
  cpu = true;
#endif
  if (!bundle && !defaultName) {
    std::fprintf(stderr, "kda-embed: no bundle (a path or --default NAME)\n");
    return 2;
  }
  kda_program *p = nullptr;
  if (defaultName ? kda_forward_default_program(defaultName, &p) != KDA_OK
                  : !bundle || kda_program_load(bundle, &p) != KDA_OK)
    return fail("loading the bundle");
  const int64_t H = keyInt(p, "H", heads ? heads : 4),
                HV = keyInt(p, "HV", valueHeads ? valueHeads : 4),
                K = keyInt(p, "K", 0), V = keyInt(p, "V", 0);
  if (!K || !V || keyFlag(p, "varlen")) {
    std::fprintf(stderr, "kda-embed: the bundle must be a fixed-length "
                         "kda.chunk_fwd (key K, V)\n");
    return 1;
  }
  const bool vk = kda_program_key(p, "state_layout") &&
                  !std::strcmp(kda_program_key(p, "state_layout"), "vk");

  // Inputs like fla's tests, B = 1.
  HostTensor q = makeTensor(p, "q", {1, T, H, K}), k = makeTensor(p, "k", {1, T, H, K}),
             v = makeTensor(p, "v", {1, T, HV, V}), g = makeTensor(p, "g", {1, T, HV, K}),
             beta = makeTensor(p, "beta", {1, T, HV}),
             aLog = makeTensor(p, "a_log", {HV}), dtBias = makeTensor(p, "dt_bias", {HV, K}),
             h0 = makeTensor(p, "initial_state", {1, HV, vk ? V : K, vk ? K : V}),
             o = makeTensor(p, "o", {1, T, HV, V}),
             ht = makeTensor(p, "final_state", {1, HV, vk ? V : K, vk ? K : V});
  Lcg rng;
  const bool normalize = !keyFlag(p, "l2norm");
  for (HostTensor *x : {&q, &k})
    for (int64_t row = 0; row < T * H; ++row) {
      std::vector<float> r(K);
      float sum = 0;
      for (float &e : r) {
        e = rng.next();
        sum += e * e;
      }
      for (int64_t d = 0; d < K; ++d)
        storeFloat(*x, row * K + d, normalize ? r[d] / std::sqrt(sum) : r[d]);
    }
  for (int64_t i = 0; i < elements(v); ++i)
    storeFloat(v, i, rng.next());
  const bool precomputed = !kda_program_key(p, "gate") ||
                           !std::strcmp(kda_program_key(p, "gate"), "precomputed");
  for (int64_t i = 0; i < elements(g); ++i)
    storeFloat(g, i, precomputed ? -rng.next() : rng.next() - 0.5f);
  for (int64_t i = 0; i < elements(beta); ++i)
    storeFloat(beta, i, keyFlag(p, "beta_sigmoid") ? rng.next() - 0.5f : rng.next());
  for (HostTensor *x : {&aLog, &dtBias, &h0})
    for (int64_t i = 0; i < elements(*x); ++i)
      storeFloat(*x, i, rng.next() - 0.5f);

  std::vector<HostTensor *> all = {&q, &k, &v, &g, &beta, &aLog, &dtBias, &h0, &o, &ht};
  kda_forward_tensors t;
  std::memset(&t, 0, sizeof t);
  kda_tensor *slots[] = {&t.q, &t.k, &t.v, &t.g, &t.beta, &t.a_log, &t.dt_bias,
                         &t.initial_state, &t.o, &t.final_state};
  std::vector<void *> device(all.size(), nullptr);
  for (size_t i = 0; i < all.size(); ++i) {
    *slots[i] = all[i]->desc;
    slots[i]->data = all[i]->bytes.empty() ? nullptr : all[i]->bytes.data();
  }
  size_t workspaceBytes = 0;
  if (kda_forward_workspace_size(p, &t, &workspaceBytes) != KDA_OK)
    return fail("workspace size");
  std::printf("bundle %s: H=%lld HV=%lld K=%lld V=%lld, T=%lld, workspace "
              "%.1f MB (%.0f bytes per token and value head)\n",
              kda_program_entry(p), static_cast<long long>(H),
              static_cast<long long>(HV), static_cast<long long>(K),
              static_cast<long long>(V), static_cast<long long>(T),
              workspaceBytes / 1e6,
              static_cast<double>(workspaceBytes) / static_cast<double>(T * HV));

  double ms = 0;
  if (cpu) {
    std::vector<unsigned char> workspace(workspaceBytes + 256);
    void *aligned = reinterpret_cast<void *>(
        (reinterpret_cast<uintptr_t>(workspace.data()) + 255) & ~uintptr_t(255));
    auto start = std::chrono::steady_clock::now();
    if (kda_forward_cpu(p, &t, aligned, workspaceBytes) != KDA_OK)
      return fail("forward (cpu)");
    ms = std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start).count();
  } else {
#ifdef KDA_EMBED_HAVE_CUDART
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i]->bytes.empty())
        continue;
      if (cudaError_t e = cudaMalloc(&device[i], all[i]->bytes.size()))
        return failCuda("cudaMalloc", e);
      cudaMemcpy(device[i], all[i]->bytes.data(), all[i]->bytes.size(),
                 cudaMemcpyHostToDevice);
      slots[i]->data = device[i];
    }
    void *workspace = nullptr;
    if (workspaceBytes)
      if (cudaError_t e = cudaMalloc(&workspace, workspaceBytes))
        return failCuda("cudaMalloc (workspace)", e);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    if (kda_forward(p, &t, workspace, workspaceBytes, nullptr) != KDA_OK)
      return fail("forward (warm-up)");
    cudaEventRecord(start);
    if (kda_forward(p, &t, workspace, workspaceBytes, nullptr) != KDA_OK)
      return fail("forward");
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float elapsed = 0;
    cudaEventElapsedTime(&elapsed, start, stop);
    ms = elapsed;
    cudaMemcpy(o.bytes.data(), device[8], o.bytes.size(), cudaMemcpyDeviceToHost);
    for (void *ptr : device)
      cudaFree(ptr);
    cudaFree(workspace);
#endif
  }
  double checksum = 0;
  int64_t nonfinite = 0;
  for (int64_t i = 0; i < elements(o); ++i) {
    float x = loadFloat(o, i);
    if (!std::isfinite(x))
      ++nonfinite;
    else
      checksum += std::fabs(x);
  }
  std::printf("forward on the %s: %.3f ms; sum |o| = %.6g, %lld non-finite\n",
              cpu ? "CPU build" : "GPU", ms, checksum,
              static_cast<long long>(nonfinite));
  kda_program_destroy(p);
  return nonfinite ? 1 : 0;
}
