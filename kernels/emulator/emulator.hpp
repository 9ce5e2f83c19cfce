#pragma once
// The CUDA device language on the CPU: what a kernel file sees when it is compiled as plain C++
// against the emulator (through the emulator's <cuda_runtime.h>). Each block's threads run as
// fibers that really meet at __syncthreads(); blocks run in parallel on the CPU's cores.
//
// Modelled: __global__/__device__/__host__, threadIdx/blockIdx/blockDim/gridDim/warpSize,
// static __shared__ (per block) and `extern __shared__` (the launch's dynamic shared memory),
// __syncthreads() and its _count/_and/_or forms, __syncwarp(), warp shuffles, votes, matches and
// reductions with CUDA's masks (only the lanes a mask names take part), atomics with CUDA's
// overloads, memory fences, vector types, the math, bit and conversion intrinsics, and the
// tensor cores' WMMA fragments (include/mma.h) and their PTX mma.sync and ldmatrix (ptx.hpp).
// Not modelled: Hopper's wgmma and TMA, other inline PTX, launches from inside a kernel,
// grid-wide synchronisation, and timing — emulated times are CPU times. Launches run in order,
// each to its end, on the checked thread loop or the fast one (run_threads_fast, by the launch's
// level: checker.hpp).
#include <math.h>  // expf, fmaf, sqrtf, ... in the global namespace, as kernels call them

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cfenv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
// <memory> before __noinline__ is defined below: libstdc++ writes __attribute__((__noinline__)) in
// shared_ptr_base.h, which that macro would break, as nvcc's front end (which defines it inside
// the compiler) does not. Its include guard keeps a learner's later #include <memory> from
// reading it again.
#include <memory>
#include <source_location>
#include <tuple>
#include <type_traits>
#include <utility>

#include "emulator/ptx.hpp"
#include "emulator/runtime_types.hpp"
#include "emulator/vector_types.hpp"

// What device code may test for: the emulator stands for a compute capability 9.0 GPU.
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#ifndef __CUDA_ARCH__
#define __CUDA_ARCH__ 900
#endif
#define GPULAB_EMULATED 1

// ---- qualifiers
#define __global__
// What the source rewrite puts after __global__ where a kernel is defined (rewrite.hpp): the kernel
// is inlined into both of the emulator's thread loops, the checked one, whose accesses the
// instrumentation hands to the checks, and the fast one, compiled without it (run_threads_fast
// below). (GCC warns that a function not declared inline might not be inlinable: the emulator
// calls it only where it is.)
#define GPULAB_INLINED_KERNEL __attribute__((always_inline))
#pragma GCC diagnostic ignored "-Wattributes"
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __restrict__ __restrict
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __grid_constant__
// Shared memory: the emulated build's source rewrite turns `__shared__ T name[N];` into a
// reference to the block's copy in the worker's shared-memory window (static_shared below), and
// `extern __shared__ T name[];` into one to the launch's dynamic shared memory (see
// emulator/rewrite.hpp and shared_memory.hpp). What the rewrite does not see (code compiled
// without it) gets one copy per worker thread, which runs one block at a time.
#define __shared__ thread_local

// The built-in variables (their note is under "built-in variables" below).
extern thread_local constinit uint3 threadIdx;
extern thread_local constinit uint3 blockIdx;
extern thread_local constinit dim3 blockDim;
extern thread_local constinit dim3 gridDim;

namespace gpulab::emulated {

namespace detail {

struct BlockContext {
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
  std::uint64_t linear = 0;      // the block's number in the grid
  std::uint32_t launch = 0;      // the launch's number (checked mode)
  std::uint32_t reader_tag = 0;  // racecheck's record of this block as a reader (checker.cpp)
  // For racecheck (kept by the scheduler): barriers opened so far, and each warp's __syncwarp()s.
  std::uint64_t barrier_generation = 0;
  const std::uint64_t* warp_syncs = nullptr;
};

// The running block (one per worker thread) and the running thread (the current fiber).
// (constinit: no dynamic initialisation, so reading them costs no TLS wrapper call in a kernel.)
extern thread_local constinit BlockContext* current_block;

void syncthreads(const char* file, int line);
void syncwarp(unsigned mask, const char* file, int line);
// __syncthreads_count/and/or: a barrier that also combines every thread's predicate.
enum class BlockVote { count, all, any };
int syncthreads_vote(int predicate, BlockVote vote);
// The lanes named in `mask` deposit their value; once every live lane of the mask has arrived,
// each gets all 32 slots and the lanes that took part (lanes outside the mask are left alone,
// as on the GPU; lanes that exited before take no part).
struct Exchange {
  const std::uint64_t* slots;
  unsigned lanes;
};
Exchange warp_exchange(unsigned mask, std::uint64_t value);
// The same across a tile of `count` threads (a multiple of 32 that divides the block: the
// caller's tile starts at its linear index rounded down to a multiple of `count`): the tile's
// slots, by thread rank, once every live thread of the tile has deposited its value, and which
// ranks took part (an exited thread does not).
struct TileExchange {
  const std::uint64_t* slots;
  const std::uint8_t* took_part;
};
TileExchange tile_exchange(unsigned count, std::uint64_t value);
unsigned int lane_id();
unsigned int live_lanes();  // lanes of this warp that exist and have not exited, as a mask
[[noreturn]] void not_emulated(const char* what);

template <typename T>
std::uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "warp exchanges move up to 8 bytes");
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
// when `src` falls outside the segment or the warp (CUDA's rule for up and down shuffles).
// A type wider than 8 bytes (a uint4, a struct) moves 8 bytes at a time, one exchange each, as
// the GPU's shuffle of such a type moves it 4 bytes at a time.
template <typename T>
T shuffle(unsigned mask, T var, long src, int width) {
  const long lane = lane_id();
  const long segment = lane / width * width;
  const bool own = src < segment || src >= segment + width || src >= 32;
  if constexpr (sizeof(T) <= 8) {
    const std::uint64_t* slots = warp_exchange(mask, to_bits(var)).slots;
    return own ? var : from_bits<T>(slots[src]);
  } else {
    static_assert(std::is_trivially_copyable_v<T>, "a shuffled type must be trivially copyable");
    constexpr std::size_t words = (sizeof(T) + 7) / 8;
    std::uint64_t in[words] = {}, out[words] = {};
    std::memcpy(in, &var, sizeof(T));
    for (std::size_t w = 0; w < words; ++w) out[w] = warp_exchange(mask, in[w]).slots[own ? lane : src];
    T result;
    std::memcpy(&result, out, sizeof(T));
    return own ? var : result;
  }
}

}  // namespace detail

namespace detail {
// One `__shared__` declaration of a kernel (one per instantiation): what a report says of it.
struct SharedDeclaration {
  const char* name;
  const char* type;  // the element type as written
  std::size_t bytes, element_bytes;
  const std::size_t* extents;  // the array's dimensions, `rank` of them
  std::size_t rank;
  const char* file;
  int line;
};
template <typename T, std::size_t... I>
constexpr auto extents_of(std::index_sequence<I...>) {
  return std::array<std::size_t, sizeof...(I) + 1>{std::extent_v<T, I>..., 0};
}
// The block's copy of a static __shared__ variable, placed on its first use in the block.
void* static_shared(const SharedDeclaration& declaration);
void* dynamic_shared_memory(const char* name, const char* type, std::size_t element_bytes);
}  // namespace detail

// What `__shared__ T name DIMS;` becomes: `auto& name = static_shared<T DIMS>([] {}, ...);` (the
// lambda's type makes each declaration, in each instantiation of its kernel, one variable).
template <typename T, typename Site>
T& static_shared(Site, const char* name, const char* type, const char* file, int line) {
  static constexpr auto extents = detail::extents_of<T>(std::make_index_sequence<std::rank_v<T>>());
  static const detail::SharedDeclaration declaration{
      name, type, sizeof(T), sizeof(std::remove_all_extents_t<T>), extents.data(), std::rank_v<T>, file, line};
  return *static_cast<T*>(detail::static_shared(declaration));
}

// What `extern __shared__ T name[];` refers to: the launch's dynamic shared memory as T[].
template <typename T>
T (&dynamic_shared(const char* name = "dynamic shared memory", const char* type = ""))
[] {
  return *static_cast<T(*)[]>(detail::dynamic_shared_memory(name, type, sizeof(T)));
}

// Where a kernel touches memory through `volatile` (the rewrite puts a call after it): says once,
// on stderr, that such warp-synchronous code is right only if a warp's lanes run in lockstep.
void note_volatile(const char* file, int line);

namespace detail {

// The running CUDA thread: its number in the block, and its record, which a thread gets only
// when it first waits (scheduler.cpp).
struct Thread;
extern thread_local constinit unsigned running_linear;
extern thread_local constinit Thread* running_thread;

// The running thread's synchronisation so far, for racecheck: its block's barrier count (high
// half) and its warp's __syncwarp count (low half).
inline std::uint64_t sync_stamp() {
  const BlockContext& b = *current_block;
  return b.barrier_generation << 32 | (b.warp_syncs[running_linear / 32] & 0xFFFFFFFFu);
}

// Where a runner starts threads one after another, and how far it may go (scheduler.cpp).
struct Starts {
  unsigned next;
  uint3 idx;
  dim3 dim;
  unsigned count;
  const bool* counting;  // the block counts exits (a thread has synchronised): every end goes to thread_ended
};
// A kernel thread threw: records it for the launch (rethrows what must unwind a fiber).
void thread_threw();
// After a thread's body, where the block counts exits or the thread waited on the way: counts
// it out; true when it had waited (so its runner stops: another took over).
bool thread_ended(unsigned linear);

// Runs threads from `from` until one waits or all have run; returns the number of the next
// thread it did not start. A template, so that the kernel's call is inlined into the loop.
template <typename Body>
[[gnu::always_inline]] inline unsigned thread_loop(const void* body, const Starts& from) {
  const Body& kernel = *static_cast<const Body*>(body);
  // (The index in three scalars, each stored on its own: a uint3 copied whole is reloaded wider
  // than it was stored, which stalls the loop on every thread.)
  unsigned t = from.next, x = from.idx.x, y = from.idx.y, z = from.idx.z;
  const unsigned count = from.count, dim_x = from.dim.x, dim_y = from.dim.y;
  while (t < count) {
    running_linear = t;
    running_thread = nullptr;
    ::threadIdx.x = x, ::threadIdx.y = y, ::threadIdx.z = z;
    try {
      kernel();
    } catch (...) {
      thread_threw();
    }
    if ((running_thread != nullptr || *from.counting) && thread_ended(t)) return t + 1;
    if (++x == dim_x) {  // the next thread's index, without a division
      x = 0;
      if (++y == dim_y) y = 0, ++z;
    }
    ++t;
  }
  return t;
}
// The loop twice: checked, where the kernel's accesses call the checks (the kernel file is built
// with the instrumentation), and fast, where the same kernel, inlined into a function the
// instrumentation leaves alone, runs as plain compiled code.
template <typename Body>
unsigned run_threads(const void* body, const Starts& from) {
  return thread_loop<Body>(body, from);
}
template <typename Body>
[[gnu::no_sanitize_thread]] unsigned run_threads_fast(const void* body, const Starts& from) {
  return thread_loop<Body>(body, from);
}
using ThreadLoop = unsigned (*)(const void* body, const Starts& from);
struct ThreadLoops {
  ThreadLoop checked, fast;
};

void launch_threads(const char* kernel, const char* file, int line, ThreadLoops loops, const void* body, dim3 grid,
                    dim3 block, std::size_t shared_bytes, cudaStream_t stream);

}  // namespace detail

// Runs `body` once per thread of every block, after checking the configuration against the
// device's limits. What `kernel<<<grid, block, shared_bytes, stream>>>(args)` becomes in the
// emulated build. Like a GPU launch it throws nothing: a refused configuration or a fault in the
// kernel is what the next cudaGetLastError() returns.
// A launch's arguments, evaluated once where the launch is, as a GPU launch copies them into the
// kernel's parameters: what each thread's call of the kernel receives (see rewrite.hpp).
// (Inlined, as the rewrite's call of the kernel and the kernel are, into both thread loops.)
template <typename Call, typename... Args>
auto arguments_once(const Call& call, Args&&... args) {
  return [ call, ... arguments = std::decay_t<Args>(std::forward<Args>(args)) ]() __attribute__((always_inline)) {
    call(arguments...);
  };
}

template <typename Body>
void launch_kernel(const char* kernel, const char* file, int line, const Body& body, dim3 grid, dim3 block,
                   std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  detail::launch_threads(kernel, file, line, {&detail::run_threads<Body>, &detail::run_threads_fast<Body>}, &body, grid,
                         block, shared_bytes, stream);
}

}  // namespace gpulab::emulated

// ---- built-in variables
// Variables at global scope, as CUDA declares them, not macros: a host variable of the same name
// (`dim3 blockDim(16, 16);` in main) hides them there, as it does under nvcc. The running block's
// worker sets them as it starts the block, and each thread's index as it runs the thread.
inline constexpr int warpSize = 32;

// ---- barriers and fences
inline void __syncthreads(std::source_location site = std::source_location::current()) {
  ::gpulab::emulated::detail::syncthreads(site.file_name(), static_cast<int>(site.line()));
}
inline int __syncthreads_count(int predicate) {
  return ::gpulab::emulated::detail::syncthreads_vote(predicate, ::gpulab::emulated::detail::BlockVote::count);
}
inline int __syncthreads_and(int predicate) {
  return ::gpulab::emulated::detail::syncthreads_vote(predicate, ::gpulab::emulated::detail::BlockVote::all);
}
inline int __syncthreads_or(int predicate) {
  return ::gpulab::emulated::detail::syncthreads_vote(predicate, ::gpulab::emulated::detail::BlockVote::any);
}
inline void __syncwarp(unsigned mask = 0xffffffffu, std::source_location site = std::source_location::current()) {
  ::gpulab::emulated::detail::syncwarp(mask, site.file_name(), static_cast<int>(site.line()));
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// ---- warp shuffles, votes, matches and reductions (the lanes of `mask` take part)
template <typename T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize) {
  const long lane = ::gpulab::emulated::detail::lane_id();
  return ::gpulab::emulated::detail::shuffle(mask, var, lane / width * width + ((src_lane % width) + width) % width,
                                             width);
}
template <typename T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  const long lane = ::gpulab::emulated::detail::lane_id();
  return ::gpulab::emulated::detail::shuffle(mask, var, lane - static_cast<long>(delta), width);
}
template <typename T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  const long lane = ::gpulab::emulated::detail::lane_id();
  return ::gpulab::emulated::detail::shuffle(mask, var, lane + static_cast<long>(delta), width);
}
template <typename T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
  const long lane = ::gpulab::emulated::detail::lane_id();
  return ::gpulab::emulated::detail::shuffle(mask, var, lane ^ static_cast<long>(lane_mask), width);
}
namespace gpulab::emulated::detail {
struct Vote {
  unsigned bits, lanes;
};
inline Vote ballot(unsigned mask, int predicate) {
  const Exchange e = warp_exchange(mask, predicate != 0);
  unsigned bits = 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if ((e.lanes >> lane & 1u) != 0 && e.slots[lane] != 0) bits |= 1u << lane;
  }
  return {bits, e.lanes};
}
}  // namespace gpulab::emulated::detail
inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return ::gpulab::emulated::detail::ballot(mask, predicate).bits;
}
inline int __any_sync(unsigned mask, int predicate) { return __ballot_sync(mask, predicate) != 0; }
inline int __all_sync(unsigned mask, int predicate) {
  const auto vote = ::gpulab::emulated::detail::ballot(mask, predicate);
  return vote.bits == vote.lanes;
}
inline int __uni_sync(unsigned mask, int predicate) {
  const auto vote = ::gpulab::emulated::detail::ballot(mask, predicate);
  return vote.bits == 0 || vote.bits == vote.lanes;
}
// The lanes that have not exited. (A GPU gives the lanes converged at this instruction; the
// emulator's lanes do not run in lockstep, so it cannot tell which of them would be.)
inline unsigned __activemask() { return ::gpulab::emulated::detail::live_lanes(); }
inline unsigned __lanemask_lt() { return (1u << ::gpulab::emulated::detail::lane_id()) - 1u; }
namespace gpulab::emulated::detail {
template <typename T>
Vote match(unsigned mask, T value) {
  const std::uint64_t mine = to_bits(value);
  const Exchange e = warp_exchange(mask, mine);
  unsigned bits = 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if ((e.lanes >> lane & 1u) != 0 && e.slots[lane] == mine) bits |= 1u << lane;
  }
  return {bits, e.lanes};
}
}  // namespace gpulab::emulated::detail
template <typename T>
unsigned __match_any_sync(unsigned mask, T value) {
  return ::gpulab::emulated::detail::match(mask, value).bits;
}
template <typename T>
unsigned __match_all_sync(unsigned mask, T value, int* pred) {
  const auto same = ::gpulab::emulated::detail::match(mask, value);
  *pred = same.bits == same.lanes;
  return same.bits == same.lanes ? same.lanes : 0u;
}
namespace gpulab::emulated::detail {
template <typename T, typename Combine>
T warp_reduce(unsigned mask, T value, Combine combine) {
  const Exchange e = warp_exchange(mask, to_bits(value));
  bool first = true;
  T result{};
  for (unsigned lane = 0; lane < 32; ++lane) {
    if ((e.lanes >> lane & 1u) == 0) continue;
    const T v = from_bits<T>(e.slots[lane]);
    result = first ? v : combine(result, v);
    first = false;
  }
  return result;
}
}  // namespace gpulab::emulated::detail
inline unsigned __reduce_add_sync(unsigned mask, unsigned v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](unsigned a, unsigned b) { return a + b; });
}
inline int __reduce_add_sync(unsigned mask, int v) {
  return static_cast<int>(__reduce_add_sync(mask, static_cast<unsigned>(v)));
}
inline unsigned __reduce_min_sync(unsigned mask, unsigned v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](unsigned a, unsigned b) { return a < b ? a : b; });
}
inline int __reduce_min_sync(unsigned mask, int v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](int a, int b) { return a < b ? a : b; });
}
inline unsigned __reduce_max_sync(unsigned mask, unsigned v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](unsigned a, unsigned b) { return a > b ? a : b; });
}
inline int __reduce_max_sync(unsigned mask, int v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](int a, int b) { return a > b ? a : b; });
}
inline unsigned __reduce_and_sync(unsigned mask, unsigned v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](unsigned a, unsigned b) { return a & b; });
}
inline unsigned __reduce_or_sync(unsigned mask, unsigned v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](unsigned a, unsigned b) { return a | b; });
}
inline unsigned __reduce_xor_sync(unsigned mask, unsigned v) {
  return ::gpulab::emulated::detail::warp_reduce(mask, v, [](unsigned a, unsigned b) { return a ^ b; });
}

// ---- atomics, with CUDA's overloads: the value converts to the pointee's type, so
// atomicAdd(&count, 1) works on an unsigned int* as it does with nvcc. Blocks run in parallel on
// several cores, so these are real atomics.
// atomicAdd(&x, v) is std::atomic_ref(x).fetch_add(v), and so on.
// (In checked mode the compiler's instrumentation hands each atomic operation to the checks as
// one: never a race.)
#define GPULAB_ATOMIC(name, member)                    \
  template <typename T>                                \
  T name(T* address, std::type_identity_t<T> value) {  \
    return std::atomic_ref<T>(*address).member(value); \
  }
GPULAB_ATOMIC(atomicAdd, fetch_add)
GPULAB_ATOMIC(atomicSub, fetch_sub)
GPULAB_ATOMIC(atomicExch, exchange)
GPULAB_ATOMIC(atomicAnd, fetch_and)
GPULAB_ATOMIC(atomicOr, fetch_or)
GPULAB_ATOMIC(atomicXor, fetch_xor)
#undef GPULAB_ATOMIC
template <typename T>
T atomicCAS(T* address, std::type_identity_t<T> compare, std::type_identity_t<T> value) {
  std::atomic_ref<T>(*address).compare_exchange_strong(compare, value);
  return compare;  // the old value, as CUDA returns it
}
namespace gpulab::emulated::detail {
// Replaces *address with next(old) while `replaces(old)` holds; returns the old value.
template <typename T, typename Replaces, typename Next>
T atomic_update(T* address, Replaces replaces, Next next) {
  std::atomic_ref<T> ref(*address);
  T old = ref.load();
  while (replaces(old) && !ref.compare_exchange_weak(old, next(old))) {
  }
  return old;
}
}  // namespace gpulab::emulated::detail
template <typename T>
T atomicMax(T* address, std::type_identity_t<T> value) {
  return ::gpulab::emulated::detail::atomic_update(
      address, [value](T old) { return old < value; }, [value](T) { return value; });
}
template <typename T>
T atomicMin(T* address, std::type_identity_t<T> value) {
  return ::gpulab::emulated::detail::atomic_update(
      address, [value](T old) { return value < old; }, [value](T) { return value; });
}
// ((old >= limit) ? 0 : old + 1) and ((old == 0 || old > limit) ? limit : old - 1), as CUDA's.
inline unsigned atomicInc(unsigned* address, unsigned limit) {
  return ::gpulab::emulated::detail::atomic_update(
      address, [](unsigned) { return true; }, [limit](unsigned old) { return old >= limit ? 0u : old + 1; });
}
inline unsigned atomicDec(unsigned* address, unsigned limit) {
  return ::gpulab::emulated::detail::atomic_update(
      address, [](unsigned) { return true; },
      [limit](unsigned old) { return (old == 0 || old > limit) ? limit : old - 1; });
}
// The _block and _system scopes are the same atomics here.
#define GPULAB_ATOMIC_SCOPES(name)                                       \
  template <typename T, typename... Rest>                                \
  T name##_block(T* address, Rest... rest) {                             \
    return name(address, static_cast<std::type_identity_t<T>>(rest)...); \
  }                                                                      \
  template <typename T, typename... Rest>                                \
  T name##_system(T* address, Rest... rest) {                            \
    return name(address, static_cast<std::type_identity_t<T>>(rest)...); \
  }
GPULAB_ATOMIC_SCOPES(atomicAdd)
GPULAB_ATOMIC_SCOPES(atomicSub)
GPULAB_ATOMIC_SCOPES(atomicExch)
GPULAB_ATOMIC_SCOPES(atomicCAS)
GPULAB_ATOMIC_SCOPES(atomicAnd)
GPULAB_ATOMIC_SCOPES(atomicOr)
GPULAB_ATOMIC_SCOPES(atomicXor)
GPULAB_ATOMIC_SCOPES(atomicMax)
GPULAB_ATOMIC_SCOPES(atomicMin)
#undef GPULAB_ATOMIC_SCOPES

// ---- min and max: CUDA's overloads for host and device code
#define GPULAB_MIN_MAX(A, B, R)                                                                                    \
  inline R min(A a, B b) { return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); } \
  inline R max(A a, B b) { return static_cast<R>(a) > static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); }
GPULAB_MIN_MAX(int, int, int)
GPULAB_MIN_MAX(unsigned int, unsigned int, unsigned int)
GPULAB_MIN_MAX(int, unsigned int, unsigned int)
GPULAB_MIN_MAX(unsigned int, int, unsigned int)
GPULAB_MIN_MAX(long, long, long)
GPULAB_MIN_MAX(unsigned long, unsigned long, unsigned long)
GPULAB_MIN_MAX(long, unsigned long, unsigned long)
GPULAB_MIN_MAX(unsigned long, long, unsigned long)
GPULAB_MIN_MAX(long long, long long, long long)
GPULAB_MIN_MAX(unsigned long long, unsigned long long, unsigned long long)
GPULAB_MIN_MAX(long long, unsigned long long, unsigned long long)
GPULAB_MIN_MAX(unsigned long long, long long, unsigned long long)
GPULAB_MIN_MAX(float, float, float)
GPULAB_MIN_MAX(double, double, double)
GPULAB_MIN_MAX(float, double, double)
GPULAB_MIN_MAX(double, float, double)
#undef GPULAB_MIN_MAX
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }

// ---- math intrinsics. The fast GPU versions (__expf, ...) trade accuracy for speed; here they
// are the exact library functions, so an emulated run does not show their error. (glibc's
// math.h already declares __expf and its kin, hence inline and noexcept rather than static.)
inline float __expf(float x) noexcept { return expf(x); }
inline float __exp10f(float x) noexcept { return powf(10.0f, x); }
inline float __logf(float x) noexcept { return logf(x); }
inline float __log2f(float x) noexcept { return log2f(x); }
inline float __log10f(float x) noexcept { return log10f(x); }
inline float __sinf(float x) noexcept { return sinf(x); }
inline float __cosf(float x) noexcept { return cosf(x); }
inline float __tanf(float x) noexcept { return tanf(x); }
inline void __sincosf(float x, float* s, float* c) noexcept { *s = sinf(x), *c = cosf(x); }
inline float __powf(float x, float y) noexcept { return powf(x, y); }
static inline float __fdividef(float x, float y) { return x / y; }
static inline float fdividef(float x, float y) { return x / y; }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
static inline float __fsqrt_rn(float x) { return sqrtf(x); }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
static inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
static inline double rcbrt(double x) { return 1.0 / std::cbrt(x); }
static inline float sinpif(float x) { return sinf(3.14159265358979f * x); }
static inline float cospif(float x) { return cosf(3.14159265358979f * x); }
static inline void sincospif(float x, float* s, float* c) { *s = sinpif(x), *c = cospif(x); }
static inline double sinpi(double x) { return std::sin(3.141592653589793 * x); }
static inline double cospi(double x) { return std::cos(3.141592653589793 * x); }
static inline float normcdff(float x) { return 0.5f * erfcf(-x * 0.70710678f); }
static inline double normcdf(double x) { return 0.5 * std::erfc(-x * 0.7071067811865476); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
static inline float __fmaf_rn(float x, float y, float z) { return fmaf(x, y, z); }
static inline double __fma_rn(double x, double y, double z) { return std::fma(x, y, z); }
static inline float __fadd_rn(float x, float y) { return x + y; }
static inline float __fsub_rn(float x, float y) { return x - y; }
static inline float __fmul_rn(float x, float y) { return x * y; }
static inline float __fdiv_rn(float x, float y) { return x / y; }
static inline double __dadd_rn(double x, double y) { return x + y; }
static inline double __dsub_rn(double x, double y) { return x - y; }
static inline double __dmul_rn(double x, double y) { return x * y; }
static inline double __ddiv_rn(double x, double y) { return x / y; }

// ---- bit intrinsics
static inline int __popc(unsigned x) { return std::popcount(x); }
static inline int __popcll(unsigned long long x) { return std::popcount(x); }
static inline int __clz(int x) { return std::countl_zero(static_cast<unsigned>(x)); }
static inline int __clzll(long long x) { return std::countl_zero(static_cast<unsigned long long>(x)); }
static inline int __ffs(int x) { return x == 0 ? 0 : std::countr_zero(static_cast<unsigned>(x)) + 1; }
static inline int __ffsll(long long x) { return x == 0 ? 0 : std::countr_zero(static_cast<unsigned long long>(x)) + 1; }
static inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i, x >>= 1) r = (r << 1) | (x & 1u);
  return r;
}
static inline unsigned long long __brevll(unsigned long long x) {
  unsigned long long r = 0;
  for (int i = 0; i < 64; ++i, x >>= 1) r = (r << 1) | (x & 1u);
  return r;
}
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long bytes = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((bytes >> (8 * ((s >> (4 * i)) & 7u))) & 0xFFu) << (8 * i);
  return r;
}
static inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long both = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((both << (shift & 31u)) >> 32);
}
static inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long both = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((both << (shift > 32 ? 32 : shift)) >> 32);
}
static inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long both = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(both >> (shift & 31u));
}
static inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long both = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(both >> (shift > 32 ? 32 : shift));
}
static inline int __mul24(int x, int y) { return (x << 8 >> 8) * (y << 8 >> 8); }
static inline unsigned __umul24(unsigned x, unsigned y) { return (x & 0xFFFFFFu) * (y & 0xFFFFFFu); }
static inline int __mulhi(int x, int y) { return static_cast<int>((static_cast<long long>(x) * y) >> 32); }
static inline unsigned __umulhi(unsigned x, unsigned y) {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) * y) >> 32);
}
static inline long long __mul64hi(long long x, long long y) {
  __extension__ using wide = __int128;
  return static_cast<long long>((static_cast<wide>(x) * y) >> 64);
}
static inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  __extension__ using wide = unsigned __int128;
  return static_cast<unsigned long long>((static_cast<wide>(x) * y) >> 64);
}
static inline unsigned __sad(int x, int y, unsigned z) {
  return (x > y ? static_cast<unsigned>(x - y) : static_cast<unsigned>(y - x)) + z;
}
static inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return (x > y ? x - y : y - x) + z; }
static inline int __hadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y) >> 1); }
static inline int __rhadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y + 1) >> 1); }
static inline unsigned __uhadd(unsigned x, unsigned y) {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) + y) >> 1);
}
static inline unsigned __urhadd(unsigned x, unsigned y) {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) + y + 1) >> 1);
}

// ---- reinterpretations and conversions with CUDA's rounding modes
static inline int __float_as_int(float x) { return std::bit_cast<int>(x); }
static inline float __int_as_float(int x) { return std::bit_cast<float>(x); }
static inline unsigned __float_as_uint(float x) { return std::bit_cast<unsigned>(x); }
static inline float __uint_as_float(unsigned x) { return std::bit_cast<float>(x); }
static inline long long __double_as_longlong(double x) { return std::bit_cast<long long>(x); }
static inline double __longlong_as_double(long long x) { return std::bit_cast<double>(x); }
static inline int __double2hiint(double x) { return static_cast<int>(std::bit_cast<unsigned long long>(x) >> 32); }
static inline int __double2loint(double x) {
  return static_cast<int>(std::bit_cast<unsigned long long>(x) & 0xFFFFFFFFu);
}
static inline double __hiloint2double(int hi, int lo) {
  return std::bit_cast<double>((static_cast<unsigned long long>(static_cast<unsigned>(hi)) << 32) |
                               static_cast<unsigned>(lo));
}
namespace gpulab::emulated::detail {
// x rounded to an integer in the mode named by the suffix: rn (nearest, ties to even), rz
// (towards zero), ru (up), rd (down).
inline double round_mode(double x, char mode) {
  switch (mode) {
    case 'z':
      return std::trunc(x);
    case 'u':
      return std::ceil(x);
    case 'd':
      return std::floor(x);
    default:
      return std::nearbyint(x);
  }
}
// A float or double to an integer type, saturating as the GPU does (NaN gives 0 or the minimum).
template <typename I>
I to_integer(double x, char mode) {
  if (std::isnan(x)) return std::is_signed_v<I> ? static_cast<I>(std::numeric_limits<I>::min()) : I{0};
  const double r = round_mode(x, mode);
  if (r <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (r >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}
// A wider value to float, rounded in a direction: the nearest float, then one step if it went
// the wrong way.
inline float to_float(long double x, char mode) {
  float f = static_cast<float>(x);
  if (mode == 'u' && static_cast<long double>(f) < x) f = std::nextafter(f, INFINITY);
  if (mode == 'd' && static_cast<long double>(f) > x) f = std::nextafter(f, -INFINITY);
  if (mode == 'z' && std::fabs(static_cast<long double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);
  return f;
}
}  // namespace gpulab::emulated::detail
#define GPULAB_ROUNDED(mode, m)                                                                                 \
  static inline int __float2int_##mode(float x) { return ::gpulab::emulated::detail::to_integer<int>(x, m); }   \
  static inline unsigned __float2uint_##mode(float x) {                                                         \
    return ::gpulab::emulated::detail::to_integer<unsigned>(x, m);                                              \
  }                                                                                                             \
  static inline long long __float2ll_##mode(float x) {                                                          \
    return ::gpulab::emulated::detail::to_integer<long long>(x, m);                                             \
  }                                                                                                             \
  static inline unsigned long long __float2ull_##mode(float x) {                                                \
    return ::gpulab::emulated::detail::to_integer<unsigned long long>(x, m);                                    \
  }                                                                                                             \
  static inline int __double2int_##mode(double x) { return ::gpulab::emulated::detail::to_integer<int>(x, m); } \
  static inline unsigned __double2uint_##mode(double x) {                                                       \
    return ::gpulab::emulated::detail::to_integer<unsigned>(x, m);                                              \
  }                                                                                                             \
  static inline long long __double2ll_##mode(double x) {                                                        \
    return ::gpulab::emulated::detail::to_integer<long long>(x, m);                                             \
  }                                                                                                             \
  static inline float __int2float_##mode(int x) { return ::gpulab::emulated::detail::to_float(x, m); }          \
  static inline float __uint2float_##mode(unsigned x) { return ::gpulab::emulated::detail::to_float(x, m); }    \
  static inline float __ll2float_##mode(long long x) { return ::gpulab::emulated::detail::to_float(x, m); }     \
  static inline float __double2float_##mode(double x) { return ::gpulab::emulated::detail::to_float(x, m); }
GPULAB_ROUNDED(rn, 'n')
GPULAB_ROUNDED(rz, 'z')
GPULAB_ROUNDED(ru, 'u')
GPULAB_ROUNDED(rd, 'd')
#undef GPULAB_ROUNDED
static inline double __int2double_rn(int x) { return x; }
static inline double __uint2double_rn(unsigned x) { return x; }

// ---- loads and stores with cache hints: plain accesses here
#define GPULAB_HINTED_LOAD(name) \
  template <typename T>          \
  T name(const T* p) {           \
    return *p;                   \
  }
#define GPULAB_HINTED_STORE(name) \
  template <typename T>           \
  void name(T* p, T v) {          \
    *p = v;                       \
  }
GPULAB_HINTED_LOAD(__ldg)
GPULAB_HINTED_LOAD(__ldcg)
GPULAB_HINTED_LOAD(__ldca)
GPULAB_HINTED_LOAD(__ldcs)
GPULAB_HINTED_LOAD(__ldlu)
GPULAB_HINTED_LOAD(__ldcv)
GPULAB_HINTED_STORE(__stwb)
GPULAB_HINTED_STORE(__stcg)
GPULAB_HINTED_STORE(__stcs)
GPULAB_HINTED_STORE(__stwt)
#undef GPULAB_HINTED_LOAD
#undef GPULAB_HINTED_STORE

// ---- clocks: CPU time, in nanoseconds
inline long long clock64() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
inline void __nanosleep(unsigned) {}
