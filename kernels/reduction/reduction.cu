// Reduction on the GPU, sum = x[0] + ... + x[n-1]: a ladder where each rung removes one cost of
// the last.
//
//   sum_atomic_per_element     every thread an atomicAdd on one address: n additions in a row
//   sum_tree_divergent         a block sums in shared memory as a tree; one atomic per block
//   sum_sequential_addressing  the tree's adders packed into whole warps
//   sum_add_during_load        each thread adds two elements as it loads: half the blocks
//   sum_warp_shuffle           the last warp sums in registers (__shfl_down_sync)
//   sum_cooperative_groups     the same, written with a warp tile and cg::reduce
//   sum_vector_loads           a fixed grid, float4 loads, many elements per thread
//
// Run them: lesson13_reduction --n 268435456 --backend gpu   (--memory-report on the emulator)
// Like every kernel file, this one is plain CUDA and builds for the GPU and for the emulator.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <stdexcept>

#include "common/launch.cuh"
#include "reduction/reduction.hpp"

namespace cg = cooperative_groups;

namespace gpulab::reduction {

// ---------------------------------------------------------------- kernels

// [snippet:sum_atomic_per_element]
// Thread i adds x[i] to the sum with atomicAdd. Correct, and every addition waits for the one
// before it at the same address: the GPU's thousands of threads queue at one place in L2.
__global__ void sum_atomic_per_element(const float* x, float* sum, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, x[i]);
}
// [/snippet]

// [snippet:sum_tree_divergent]
// What it adds: a block sums its kBlock elements itself, as a tree in shared memory — level by
// level, each adding pairs `stride` apart, a barrier between levels (the next level reads what
// this one wrote) — and only its total goes to the atomic: one atomic per block, log2(256) = 8
// additions deep inside it. The adders are the threads with t % (2·stride) == 0: at every level
// each warp has a few adders and many idle lanes (divergence), and `%` is slow.
__global__ void sum_tree_divergent(const float* x, float* sum, std::size_t n) {
  __shared__ float partial[kBlock];
  const unsigned t = threadIdx.x;
  const std::size_t i = std::size_t{blockIdx.x} * kBlock + t;
  partial[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = 1; stride < kBlock; stride *= 2) {
    if (t % (2 * stride) == 0) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) atomicAdd(sum, partial[0]);
}
// [/snippet]

// [snippet:sum_sequential_addressing]
// What it adds: the first `stride` threads add partial[t + stride] into partial[t]. The same
// number of additions, but the adders are consecutive: whole warps work and whole warps rest
// (no divergence until fewer than 32 adders remain), and a warp's 32 reads lie in 32 banks.
__global__ void sum_sequential_addressing(const float* x, float* sum, std::size_t n) {
  __shared__ float partial[kBlock];
  const unsigned t = threadIdx.x;
  const std::size_t i = std::size_t{blockIdx.x} * kBlock + t;
  partial[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) atomicAdd(sum, partial[0]);
}
// [/snippet]

// [snippet:sum_add_during_load]
// What it adds: a block covers 2·kBlock elements and each thread adds its two as it loads them.
// Above, half the threads went idle at the tree's first level; here that level is done in
// registers, and there are half as many blocks (and atomics).
__global__ void sum_add_during_load(const float* x, float* sum, std::size_t n) {
  __shared__ float partial[kBlock];
  const unsigned t = threadIdx.x;
  const std::size_t i = std::size_t{blockIdx.x} * (2 * kBlock) + t;
  float v = i < n ? x[i] : 0.0f;
  if (i + kBlock < n) v += x[i + kBlock];
  partial[t] = v;
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) atomicAdd(sum, partial[0]);
}
// [/snippet]

// [snippet:sum_warp_shuffle]
// What it adds: once 64 values are left, one warp finishes in registers. __shfl_down_sync(mask,
// v, offset) hands each lane the v of the lane `offset` above it, with no shared memory and no
// barrier (a warp's lanes move together; the mask names the lanes taking part — all 32 here, as
// all 32 run this code). Five shuffles replace five barriers.
__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;  // lane 0 holds the warp's sum
}

__global__ void sum_warp_shuffle(const float* x, float* sum, std::size_t n) {
  __shared__ float partial[kBlock];
  const unsigned t = threadIdx.x;
  const std::size_t i = std::size_t{blockIdx.x} * (2 * kBlock) + t;
  float v = i < n ? x[i] : 0.0f;
  if (i + kBlock < n) v += x[i + kBlock];
  partial[t] = v;
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 32; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t < 32) {
    v = warp_sum(partial[t] + partial[t + 32]);
    if (t == 0) atomicAdd(sum, v);
  }
}
// [/snippet]

// [snippet:sum_cooperative_groups]
// What it adds: the same idea in cooperative groups' words, and one shared-memory step instead of
// a tree. Each warp (a thread_block_tile<32>) sums its 32 values with cg::reduce; the 8 warp sums
// go through shared memory; the first warp sums those. The group names who takes part, so no mask
// is written by hand, and the block's barrier is block.sync().
__global__ void sum_cooperative_groups(const float* x, float* sum, std::size_t n) {
  __shared__ float warp_sums[kBlock / 32];
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const std::size_t i = std::size_t{blockIdx.x} * (2 * kBlock) + block.thread_rank();
  float v = i < n ? x[i] : 0.0f;
  if (i + kBlock < n) v += x[i + kBlock];
  v = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    v = warp.thread_rank() < kBlock / 32 ? warp_sums[warp.thread_rank()] : 0.0f;
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) atomicAdd(sum, v);
  }
}
// [/snippet]

// [snippet:sum_vector_loads]
// What it adds: a grid sized to the GPU, not to n (vector_loads_blocks: four blocks for each a
// multiprocessor holds), each thread walking the array in float4 steps of the whole grid's width and summing in a
// register. Every load brings 16 bytes, and each thread issues four before it adds any: 64 bytes
// in flight per thread keep the memory system busy (a loop that adds each load before the next
// waits a memory latency per float4). The tree and the atomic happen once per ~250 elements a
// thread (at 2^28) instead of once per 2. The n % 4 elements past the last float4 go to the
// first threads.
__global__ void sum_vector_loads(const float* __restrict__ x, float* sum, std::size_t n) {
  __shared__ float warp_sums[kBlock / 32];
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const std::size_t threads = std::size_t{gridDim.x} * kBlock;
  const std::size_t quads = n / 4;
  const auto* x4 = reinterpret_cast<const float4*>(x);
  float v = 0.0f;
  std::size_t q = std::size_t{blockIdx.x} * kBlock + threadIdx.x;
  for (; q + 3 * threads < quads; q += 4 * threads) {
    const float4 a = x4[q], b = x4[q + threads], c = x4[q + 2 * threads], d = x4[q + 3 * threads];
    v += (((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w))) +
         (((c.x + c.y) + (c.z + c.w)) + ((d.x + d.y) + (d.z + d.w)));
  }
  for (; q < quads; q += threads) {
    const float4 f = x4[q];
    v += (f.x + f.y) + (f.z + f.w);
  }
  const std::size_t thread = std::size_t{blockIdx.x} * kBlock + threadIdx.x;
  if (thread < n % 4) v += x[4 * quads + thread];
  v = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    v = warp.thread_rank() < kBlock / 32 ? warp_sums[warp.thread_rank()] : 0.0f;
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) atomicAdd(sum, v);
  }
}
// [/snippet]

// ---------------------------------------------------------------- launchers

namespace {

// Every kernel adds into the sum, so it starts at 0 (queued before the kernel, on its stream).
void zero(std::span<float> sum) {
  if (sum.size() != 1) throw std::invalid_argument("reduction: sum must hold exactly one float");
  GPULAB_CUDA_CHECK(cudaMemsetAsync(sum.data(), 0, sizeof(float)));
}

}  // namespace

void atomic_per_element(std::span<const float> x, std::span<float> sum, int threads) {
  zero(sum);
  if (x.empty()) return;
  const dim3 grid(blocks_for(x.size(), static_cast<unsigned int>(threads)));
  sum_atomic_per_element<<<grid, threads>>>(x.data(), sum.data(), x.size());
  check_launch("sum_atomic_per_element", grid, dim3(threads));
}

void tree_divergent(std::span<const float> x, std::span<float> sum) {
  zero(sum);
  if (x.empty()) return;
  const dim3 grid(blocks_for(x.size(), kBlock));
  sum_tree_divergent<<<grid, kBlock>>>(x.data(), sum.data(), x.size());
  check_launch("sum_tree_divergent", grid, dim3(kBlock));
}

void sequential_addressing(std::span<const float> x, std::span<float> sum) {
  zero(sum);
  if (x.empty()) return;
  const dim3 grid(blocks_for(x.size(), kBlock));
  sum_sequential_addressing<<<grid, kBlock>>>(x.data(), sum.data(), x.size());
  check_launch("sum_sequential_addressing", grid, dim3(kBlock));
}

void add_during_load(std::span<const float> x, std::span<float> sum) {
  zero(sum);
  if (x.empty()) return;
  const dim3 grid(blocks_for(x.size(), 2 * kBlock));
  sum_add_during_load<<<grid, kBlock>>>(x.data(), sum.data(), x.size());
  check_launch("sum_add_during_load", grid, dim3(kBlock));
}

void warp_shuffle(std::span<const float> x, std::span<float> sum) {
  zero(sum);
  if (x.empty()) return;
  const dim3 grid(blocks_for(x.size(), 2 * kBlock));
  sum_warp_shuffle<<<grid, kBlock>>>(x.data(), sum.data(), x.size());
  check_launch("sum_warp_shuffle", grid, dim3(kBlock));
}

void cooperative_groups(std::span<const float> x, std::span<float> sum) {
  zero(sum);
  if (x.empty()) return;
  const dim3 grid(blocks_for(x.size(), 2 * kBlock));
  sum_cooperative_groups<<<grid, kBlock>>>(x.data(), sum.data(), x.size());
  check_launch("sum_cooperative_groups", grid, dim3(kBlock));
}

// Four times as many blocks as the GPU holds at once (never more than the float4s need): a block
// that finishes early hands its place to another, so the multiprocessors finish together (the
// last wave is a quarter of the work, not all of it). On an H100 this measured ~1 % faster than
// one wave, and as fast as 2 or 8 float4s in flight per thread.
std::size_t vector_loads_blocks(std::size_t n) {
  const std::size_t quads = std::max<std::size_t>(1, n / 4);
  return std::min<std::size_t>(4 * std::size_t{grid_to_fill(quads, kBlock)}, blocks_for(quads, kBlock));
}

void vector_loads(std::span<const float> x, std::span<float> sum) {
  zero(sum);
  if (x.empty()) return;
  if (!aligned16(x.data())) throw std::invalid_argument("reduction vector_loads: x must be 16-byte aligned");
  const dim3 grid(static_cast<unsigned int>(vector_loads_blocks(x.size())));
  sum_vector_loads<<<grid, kBlock>>>(x.data(), sum.data(), x.size());
  check_launch("sum_vector_loads", grid, dim3(kBlock));
}

}  // namespace gpulab::reduction
