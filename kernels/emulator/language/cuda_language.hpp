#pragma once
// The CUDA device language on the CPU: what a kernel file sees when it is compiled as plain C++
// against the emulator (through the emulator's <cuda_runtime.h>). Each block's threads run as
// fibers that really meet at __syncthreads() (on the fast path, a kernel whose barriers are in
// plain view runs in phases instead: execution/phases.hpp); blocks run in parallel on the CPU's cores.
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
#include <typeinfo>
#include <utility>

#include "emulator/language/ptx.hpp"
#include "emulator/language/vector_types.hpp"
#include "emulator/runtime/runtime_types.hpp"

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
// emulator/rewrite/rewrite.hpp and shared_memory.hpp). What the rewrite does not see (code compiled
// without it) gets one copy per worker thread, which runs one block at a time.
#define __shared__ thread_local

// The built-in variables (their note is under "built-in variables" below).
extern thread_local constinit uint3 threadIdx;
extern thread_local constinit uint3 blockIdx;
extern thread_local constinit dim3 blockDim;
extern thread_local constinit dim3 gridDim;

#include "emulator/execution/kernel_threads.hpp"

// ---- built-in variables
// Variables at global scope, as CUDA declares them, not macros: a host variable of the same name
// (`dim3 blockDim(16, 16);` in main) hides them there, as it does under nvcc. The running block's
// worker sets them as it starts the block, and each thread's index as it runs the thread.
inline constexpr int warpSize = 32;

// ---- barriers and fences
// (The caller's file and line as constants: a std::source_location is read through a pointer,
// and in a kernel file every read calls the checks' instrumentation, twice a thread a barrier.)
inline void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  ::gpulab::emulated::detail::syncthreads(file, line);
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
inline void __syncwarp(unsigned mask = 0xffffffffu, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  ::gpulab::emulated::detail::syncwarp(mask, file, line);
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }

#include "emulator/language/intrinsics.hpp"
#include "emulator/language/warp_and_atomics.hpp"
