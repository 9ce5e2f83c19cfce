#pragma once
// cuRAND's host API on the emulator: generators that fill device memory (or host memory, for a
// host generator) with uniform, normal and log-normal numbers and raw 32-bit words, with cuRAND's
// argument rules and status codes. The distributions are cuRAND's; the numbers are not: GPU Lab's
// generators are its own (each element a pure function of the seed and its place in the stream,
// through SplitMix64's mix), so a program that prints statistics prints the same on both, and one
// that prints the raw numbers does not. Successive calls continue the stream, as cuRAND's do. What a
// generator writes counts as written for initcheck. Not modelled: quasi-random generators, MTGP32,
// MT19937's own sequence (it gets this stream too), Poisson and discrete distributions.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "base/mix.hpp"
#include "cuda_runtime.h"
#include "emulator/runtime/memory.hpp"

typedef enum curandStatus {
  CURAND_STATUS_SUCCESS = 0,
  CURAND_STATUS_VERSION_MISMATCH = 100,
  CURAND_STATUS_NOT_INITIALIZED = 101,
  CURAND_STATUS_ALLOCATION_FAILED = 102,
  CURAND_STATUS_TYPE_ERROR = 103,
  CURAND_STATUS_OUT_OF_RANGE = 104,
  CURAND_STATUS_LENGTH_NOT_MULTIPLE = 105,
  CURAND_STATUS_DOUBLE_PRECISION_REQUIRED = 106,
  CURAND_STATUS_LAUNCH_FAILURE = 201,
  CURAND_STATUS_PREEXISTING_FAILURE = 202,
  CURAND_STATUS_INITIALIZATION_FAILED = 203,
  CURAND_STATUS_ARCH_MISMATCH = 204,
  CURAND_STATUS_INTERNAL_ERROR = 999
} curandStatus_t;

typedef enum curandRngType {
  CURAND_RNG_TEST = 0,
  CURAND_RNG_PSEUDO_DEFAULT = 100,
  CURAND_RNG_PSEUDO_XORWOW = 101,
  CURAND_RNG_PSEUDO_MRG32K3A = 121,
  CURAND_RNG_PSEUDO_MTGP32 = 141,
  CURAND_RNG_PSEUDO_MT19937 = 142,
  CURAND_RNG_PSEUDO_PHILOX4_32_10 = 161,
  CURAND_RNG_QUASI_DEFAULT = 200,
  CURAND_RNG_QUASI_SOBOL32 = 201,
  CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 = 202,
  CURAND_RNG_QUASI_SOBOL64 = 203,
  CURAND_RNG_QUASI_SCRAMBLED_SOBOL64 = 204
} curandRngType_t;

struct curandGenerator_st {
  curandRngType_t type = CURAND_RNG_PSEUDO_DEFAULT;
  bool host = false;  // curandCreateGeneratorHost: it writes host memory
  unsigned long long seed = 0, offset = 0;
  cudaStream_t stream = nullptr;
};
typedef curandGenerator_st* curandGenerator_t;

namespace gpulab::emulated::rand {

// The k-th 32-bit word of a host generator's stream.
inline std::uint32_t word(const curandGenerator_st& g, unsigned long long k) {
  return static_cast<std::uint32_t>(gpulab::mix64(gpulab::mix64(g.seed ^ 0x243F6A8885A308D3ull) + k) >> 32);
}
// cuRAND's uniform range, (0, 1]: never 0, so a log of it is finite.
inline double unit(std::uint32_t x) { return (static_cast<double>(x) + 1.0) * 0x1.0p-32; }

inline bool pseudo(curandRngType_t t) {
  return t == CURAND_RNG_PSEUDO_DEFAULT || t == CURAND_RNG_PSEUDO_XORWOW || t == CURAND_RNG_PSEUDO_MRG32K3A ||
         t == CURAND_RNG_PSEUDO_MTGP32 || t == CURAND_RNG_PSEUDO_MT19937 || t == CURAND_RNG_PSEUDO_PHILOX4_32_10;
}

// Where a generator may write `bytes` at p: device memory for a device generator (on a GPU a host
// pointer faults: the call fails and says so), anywhere for a host one.
inline bool writable(const curandGenerator_st& g, const char* call, const void* p, std::size_t bytes) {
  if (g.host || bytes == 0) return true;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const Allocation* buffer = find_allocation(a);
  if (buffer != nullptr && a + bytes <= buffer->end()) return true;
  std::fprintf(stderr,
               "========= %s: the output (%zu bytes at %p) is not inside one device buffer (cudaMalloc): on a GPU "
               "the generator's kernel would fault\n",
               call, bytes, p);
  return false;
}

// Fills out[0, num) with f(k) for the stream's next num places; the common part of every call.
template <typename T, typename F>
curandStatus_t fill(curandGenerator_t g, const char* call, T* out, std::size_t num, F f) {
  if (g == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (!writable(*g, call, out, num * sizeof(T))) return CURAND_STATUS_LAUNCH_FAILURE;
  cudaStreamSynchronize(g->stream);  // after the work queued before it, as on its stream
  for (std::size_t i = 0; i < num; ++i) out[i] = f(g->offset + i);
  g->offset += num;
  if (!g->host) note_host_write(out, num * sizeof(T));
  return CURAND_STATUS_SUCCESS;
}

// Normal numbers in pairs (Box-Muller), as cuRAND's pseudo-random generators make them: the count
// must be even.
template <typename T>
curandStatus_t normal(curandGenerator_t g, const char* call, T* out, std::size_t num, T mean, T stddev, bool log) {
  if (g == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (num % 2 != 0) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  const unsigned long long start = g->offset;
  return fill(g, call, out, num, [&](unsigned long long k) {
    const unsigned long long pair = start + ((k - start) & ~1ull);  // the pair's first place
    const double r = std::sqrt(-2.0 * std::log(unit(word(*g, pair)))),
                 angle = 6.283185307179586 * unit(word(*g, pair + 1));
    const double z = ((k - start) % 2 == 0 ? std::cos(angle) : std::sin(angle)) * r;
    const double v = static_cast<double>(mean) + static_cast<double>(stddev) * z;
    return static_cast<T>(log ? std::exp(v) : v);
  });
}

}  // namespace gpulab::emulated::rand

inline curandStatus_t curandCreateGenerator(curandGenerator_t* generator, curandRngType_t type) {
  if (generator == nullptr) return CURAND_STATUS_OUT_OF_RANGE;
  if (!gpulab::emulated::rand::pseudo(type)) {
    std::fprintf(stderr,
                 "========= curandCreateGenerator: GPU Lab's emulator has no quasi-random generators (type %d)\n",
                 static_cast<int>(type));
    return CURAND_STATUS_TYPE_ERROR;
  }
  *generator = new curandGenerator_st{type, false, 0, 0, nullptr};
  return CURAND_STATUS_SUCCESS;
}
inline curandStatus_t curandCreateGeneratorHost(curandGenerator_t* generator, curandRngType_t type) {
  const curandStatus_t s = curandCreateGenerator(generator, type);
  if (s == CURAND_STATUS_SUCCESS) (*generator)->host = true;
  return s;
}
inline curandStatus_t curandDestroyGenerator(curandGenerator_t generator) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  delete generator;
  return CURAND_STATUS_SUCCESS;
}
inline curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  generator->stream = stream;
  return CURAND_STATUS_SUCCESS;
}
// A new seed keeps the generator's place in the stream, as cuRAND's does (an H200 showed it): the
// same numbers again take curandSetGeneratorOffset(generator, 0) as well.
inline curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  generator->seed = seed;
  return CURAND_STATUS_SUCCESS;
}
inline curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  generator->offset = offset;
  return CURAND_STATUS_SUCCESS;
}
inline curandStatus_t curandGenerateSeeds(curandGenerator_t generator) {
  return generator == nullptr ? CURAND_STATUS_NOT_INITIALIZED : CURAND_STATUS_SUCCESS;
}
inline curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int* out, std::size_t num) {
  return gpulab::emulated::rand::fill(generator, "curandGenerate", out, num, [&](unsigned long long k) {
    return gpulab::emulated::rand::word(*generator, k);
  });
}
inline curandStatus_t curandGenerateUniform(curandGenerator_t generator, float* out, std::size_t num) {
  return gpulab::emulated::rand::fill(generator, "curandGenerateUniform", out, num, [&](unsigned long long k) {
    return static_cast<float>(gpulab::emulated::rand::unit(gpulab::emulated::rand::word(*generator, k)));
  });
}
inline curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double* out, std::size_t num) {
  return gpulab::emulated::rand::fill(generator, "curandGenerateUniformDouble", out, num, [&](unsigned long long k) {
    const std::uint64_t bits = (std::uint64_t{gpulab::emulated::rand::word(*generator, 2 * k)} << 21) ^
                               gpulab::emulated::rand::word(*generator, 2 * k + 1);
    return (static_cast<double>(bits & ((std::uint64_t{1} << 53) - 1)) + 1.0) * 0x1.0p-53;
  });
}
inline curandStatus_t curandGenerateNormal(curandGenerator_t generator, float* out, std::size_t num, float mean,
                                           float stddev) {
  return gpulab::emulated::rand::normal(generator, "curandGenerateNormal", out, num, mean, stddev, false);
}
inline curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double* out, std::size_t num, double mean,
                                                 double stddev) {
  return gpulab::emulated::rand::normal(generator, "curandGenerateNormalDouble", out, num, mean, stddev, false);
}
inline curandStatus_t curandGenerateLogNormal(curandGenerator_t generator, float* out, std::size_t num, float mean,
                                              float stddev) {
  return gpulab::emulated::rand::normal(generator, "curandGenerateLogNormal", out, num, mean, stddev, true);
}
inline curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t generator, double* out, std::size_t num,
                                                    double mean, double stddev) {
  return gpulab::emulated::rand::normal(generator, "curandGenerateLogNormalDouble", out, num, mean, stddev, true);
}
inline curandStatus_t curandGetVersion(int* version) {
  *version = 10400;
  return CURAND_STATUS_SUCCESS;
}
