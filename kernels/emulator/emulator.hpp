#pragma once
// The CUDA language on the CPU: what a kernel file (.cu) sees when it is compiled as plain C++
// for the emulated target (GPULAB_TARGET = emulated). Each block's threads run as fibers that
// really meet at __syncthreads(); blocks run in parallel on the CPU's cores.
//
// Modelled: __global__/__device__/__host__, threadIdx/blockIdx/blockDim/gridDim/warpSize,
// static __shared__ (per block) and dynamic shared memory (dynamic_shared<T>()),
// __syncthreads(), __syncwarp(), warp shuffles and votes, atomics, vector types, the math
// functions and intrinsics the lessons use, and the launch-configuration rules of a real GPU.
// Not modelled: tensor cores, the libraries (cuBLAS, cuDNN, cuFFT, NCCL), streams running
// concurrently, and timing — emulated times are CPU times.
#include <math.h>  // expf, fmaf, sqrtf, ... in the global namespace, as kernels call them
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

#include "common/cuda_error.hpp"
#include "common/device_info.hpp"
#include "emulator/device.hpp"
#include "emulator/memory.hpp"
#include "emulator/vector_types.hpp"

// ---- qualifiers
#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
// Static shared memory: one copy per worker thread, and a worker runs one block at a time, so all
// threads (fibers) of a block share it and blocks running in parallel do not.
#define __shared__ thread_local

namespace gpulab::emulated {

namespace detail {

struct BlockContext {
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
  unsigned char* dynamic_shared = nullptr;
};

// The running block (one per worker thread) and the running thread (the current fiber).
extern thread_local BlockContext* current_block;
extern thread_local uint3 current_thread_idx;

void syncthreads();
// Every lane of the calling thread's warp deposits `value`; returns the warp's 32 deposits once
// all its live lanes have arrived.
const std::uint64_t* warp_exchange(std::uint64_t value);
unsigned int lane_id();
unsigned int warp_lanes();  // lanes that exist in this warp (fewer in a block's last warp)

template <typename T>
std::uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "shuffles move up to 8 bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  return bits;
}
template <typename T>
T from_bits(std::uint64_t bits) {
  T v;
  std::memcpy(&v, &bits, sizeof(T));
  return v;
}

// A shuffle: lane `src` of the caller's segment of `width` lanes, or the caller's own value
// when `src` falls outside it.
template <typename T>
T shuffle(T var, long src, int width) {
  const std::uint64_t* slots = warp_exchange(to_bits(var));
  const long lane = lane_id();
  const long segment = lane / width * width;
  if (src < segment || src >= segment + width || src >= static_cast<long>(warp_lanes())) return var;
  return from_bits<T>(slots[src]);
}

}  // namespace detail

struct LaunchConfig {
  dim3 grid;
  dim3 block;
  std::size_t shared_bytes = 0;  // dynamic shared memory per block
  void* stream = nullptr;        // accepted for source compatibility; launches run in order
};

// Runs `body` once per thread of every block of the launch, after checking the configuration
// against the device's limits (the same errors as the GPU) and before checking the guard zones.
void run_grid(const char* kernel, const char* file, int line, const LaunchConfig& config,
              const std::function<void()>& body);

template <typename... Params, typename... Args>
void launch(const char* kernel_name, const char* file, int line, const LaunchConfig& config, void (*kernel)(Params...),
            Args&&... args) {
  // Arguments are converted once, as a launch copies them into the kernel's parameter space;
  // each thread then gets its own copy.
  const std::tuple<std::decay_t<Params>...> params(std::forward<Args>(args)...);
  run_grid(kernel_name, file, line, config, [&] { std::apply(kernel, params); });
}

// Theoretical occupancy as a Hopper GPU limits it by threads (2048 per multiprocessor), blocks
// (32 per multiprocessor) and shared memory; registers are not modelled, so a GPU may report less.
template <typename... Params>
double occupancy(void (*)(Params...), int block, std::size_t shared_bytes = 0) {
  const DeviceInfo& d = device();
  int blocks = std::min(d.max_threads_per_multiprocessor / std::max(block, 1), 32);
  if (shared_bytes > 0) blocks = std::min(blocks, static_cast<int>((228 * 1024) / shared_bytes));
  return static_cast<double>(blocks) * block / d.max_threads_per_multiprocessor;
}

// cudaMemcpyToSymbol from device memory: `count` elements into a __constant__ array (here an
// ordinary array, as __constant__ means nothing to the emulator).
template <typename T, std::size_t N>
void copy_to_constant(T (&symbol)[N], const T* device_source, std::size_t count) {
  if (count > N) throw std::invalid_argument("copy_to_constant: more elements than the __constant__ array holds");
  std::memcpy(symbol, device_source, count * sizeof(T));
}

// Dynamic shared memory (the launch's shared_bytes), the emulator's `extern __shared__` array.
template <typename T>
T* dynamic_shared() {
  return reinterpret_cast<T*>(detail::current_block->dynamic_shared);
}

}  // namespace gpulab::emulated

// ---- built-in variables
#define threadIdx (::gpulab::emulated::detail::current_thread_idx)
#define blockIdx (::gpulab::emulated::detail::current_block->block_idx)
#define blockDim (::gpulab::emulated::detail::current_block->block_dim)
#define gridDim (::gpulab::emulated::detail::current_block->grid_dim)
inline constexpr int warpSize = 32;

// ---- synchronisation, warp shuffles and votes
inline void __syncthreads() { ::gpulab::emulated::detail::syncthreads(); }
inline void __syncwarp(unsigned /*mask*/ = 0xffffffffu) { ::gpulab::emulated::detail::warp_exchange(0); }

template <typename T>
T __shfl_sync(unsigned /*mask*/, T var, int src_lane, int width = warpSize) {
  const long lane = ::gpulab::emulated::detail::lane_id();
  return ::gpulab::emulated::detail::shuffle(var, lane / width * width + src_lane % width, width);
}
template <typename T>
T __shfl_up_sync(unsigned /*mask*/, T var, unsigned delta, int width = warpSize) {
  return ::gpulab::emulated::detail::shuffle(var, static_cast<long>(::gpulab::emulated::detail::lane_id()) - delta,
                                             width);
}
template <typename T>
T __shfl_down_sync(unsigned /*mask*/, T var, unsigned delta, int width = warpSize) {
  return ::gpulab::emulated::detail::shuffle(var, static_cast<long>(::gpulab::emulated::detail::lane_id()) + delta,
                                             width);
}
template <typename T>
T __shfl_xor_sync(unsigned /*mask*/, T var, int lane_mask, int width = warpSize) {
  return ::gpulab::emulated::detail::shuffle(
      var, static_cast<long>(::gpulab::emulated::detail::lane_id() ^ static_cast<unsigned>(lane_mask)), width);
}
inline unsigned __ballot_sync(unsigned mask, int predicate) {
  const std::uint64_t* slots = ::gpulab::emulated::detail::warp_exchange(predicate != 0);
  unsigned bits = 0;
  for (unsigned lane = 0; lane < ::gpulab::emulated::detail::warp_lanes(); ++lane) {
    if (slots[lane] != 0) bits |= 1u << lane;
  }
  return bits & mask;
}
inline int __any_sync(unsigned mask, int predicate) { return __ballot_sync(mask, predicate) != 0; }
inline int __all_sync(unsigned mask, int predicate) {
  const unsigned lanes = ::gpulab::emulated::detail::warp_lanes();
  const unsigned present = lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1;
  return __ballot_sync(mask, predicate) == (mask & present);
}
inline unsigned __activemask() {
  const unsigned lanes = ::gpulab::emulated::detail::warp_lanes();
  return lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1;
}

// ---- atomics: blocks run in parallel on several cores, so these are real atomics
template <typename T>
T atomicAdd(T* address, T value) {
  return std::atomic_ref<T>(*address).fetch_add(value);
}
template <typename T>
T atomicSub(T* address, T value) {
  return std::atomic_ref<T>(*address).fetch_sub(value);
}
template <typename T>
T atomicExch(T* address, T value) {
  return std::atomic_ref<T>(*address).exchange(value);
}
template <typename T>
T atomicCAS(T* address, T compare, T value) {
  std::atomic_ref<T>(*address).compare_exchange_strong(compare, value);
  return compare;  // the old value, as CUDA returns it
}
namespace gpulab::emulated::detail {
// Replaces *address with value while `replaces(value, old)` holds; returns the old value.
template <typename T, typename Replaces>
T atomic_update(T* address, T value, Replaces replaces) {
  std::atomic_ref<T> ref(*address);
  T old = ref.load();
  while (replaces(value, old) && !ref.compare_exchange_weak(old, value)) {
  }
  return old;
}
}  // namespace gpulab::emulated::detail
template <typename T>
T atomicMax(T* address, T value) {
  return ::gpulab::emulated::detail::atomic_update(address, value, [](T v, T old) { return old < v; });
}
template <typename T>
T atomicMin(T* address, T value) {
  return ::gpulab::emulated::detail::atomic_update(address, value, [](T v, T old) { return v < old; });
}

// ---- math intrinsics. The fast GPU versions (__expf, ...) trade accuracy for speed; here they
// are the exact library functions, so an emulated run does not show their error. (glibc's
// math.h already declares __expf and its kin, hence inline and noexcept rather than static.)
inline float __expf(float x) noexcept { return expf(x); }
inline float __logf(float x) noexcept { return logf(x); }
inline float __sinf(float x) noexcept { return sinf(x); }
inline float __cosf(float x) noexcept { return cosf(x); }
inline float __powf(float x, float y) noexcept { return powf(x, y); }
static inline float __fdividef(float x, float y) { return x / y; }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline float __fmaf_rn(float x, float y, float z) { return fmaf(x, y, z); }
static inline float __fsqrt_rn(float x) { return sqrtf(x); }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
static inline int __popc(unsigned x) { return std::popcount(x); }
static inline int __popcll(unsigned long long x) { return std::popcount(x); }
static inline int __float_as_int(float x) { return std::bit_cast<int>(x); }
static inline float __int_as_float(int x) { return std::bit_cast<float>(x); }
static inline unsigned __float_as_uint(float x) { return std::bit_cast<unsigned>(x); }
static inline float __uint_as_float(unsigned x) { return std::bit_cast<float>(x); }
template <typename T>
T __ldg(const T* p) {
  return *p;
}
