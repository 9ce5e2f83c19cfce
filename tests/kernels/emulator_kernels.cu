// Test kernels for the emulator; see emulator_kernels.inc. Built for the GPU and the emulator.
#include <stdexcept>

#include "common/launch.cuh"
#include "kernels/cpu_multiply.hpp"
#include "kernels/emulator_kernels.hpp"

namespace gpulab::test_kernels {

namespace {

constexpr int kTile = 16;

template <bool kWithBarrier>
__global__ void reverse_kernel(const int* in, int* out, std::size_t n) {
  __shared__ int slots[1024];
  const unsigned t = threadIdx.x;
  const std::size_t base = std::size_t{blockIdx.x} * blockDim.x;
  if (base + t < n) slots[t] = in[base + t];
  if (kWithBarrier) __syncthreads();
  const unsigned mirror = blockDim.x - 1 - t;
  if (base + t < n && base + mirror < n) out[base + t] = slots[mirror];
}

__global__ void block_sum_kernel(const float* in, float* sums, std::size_t n) {
  extern __shared__ float partial[];
  const unsigned t = threadIdx.x;
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) partial[t] += partial[t + half];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}

template <bool kXor>
__global__ void warp_sum_kernel(const float* in, float* sums, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) {
    v += kXor ? __shfl_xor_sync(0xffffffffu, v, offset) : __shfl_down_sync(0xffffffffu, v, offset);
  }
  if (threadIdx.x % 32 == 0 && i < n) sums[i / 32] = v;
}

__global__ void vote_kernel(const float* in, unsigned* counts, int* any, int* all, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const int positive = i < n && in[i] > 0.0f;
  const unsigned bits = __ballot_sync(0xffffffffu, positive);
  const int some = __any_sync(0xffffffffu, positive);
  const int every = __all_sync(0xffffffffu, positive);
  if (threadIdx.x % 32 == 0 && i < n) {
    counts[i / 32] = static_cast<unsigned>(__popc(bits));
    any[i / 32] = some;
    all[i / 32] = every;
  }
}

__global__ void count_kernel(const float* in, float threshold, unsigned* count, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n && in[i] > threshold) atomicAdd(count, 1u);
}

__global__ void extremes_kernel(const int* in, int* extremes, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicMax(&extremes[0], in[i]);
    atomicMin(&extremes[1], in[i]);
  }
}

__global__ void index_kernel(unsigned* out) {
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned global = block * (blockDim.x * blockDim.y * blockDim.z) + thread;
  out[global] = global;
}

__global__ void tiled_matmul_kernel(const float* a, const float* b, float* c, int n) {
  __shared__ float ta[kTile][kTile];
  __shared__ float tb[kTile][kTile];
  const int row = static_cast<int>(blockIdx.y * kTile + threadIdx.y);
  const int col = static_cast<int>(blockIdx.x * kTile + threadIdx.x);
  float sum = 0.0f;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    const int ka = k0 + static_cast<int>(threadIdx.x), kb = k0 + static_cast<int>(threadIdx.y);
    ta[threadIdx.y][threadIdx.x] = row < n && ka < n ? a[row * n + ka] : 0.0f;
    tb[threadIdx.y][threadIdx.x] = kb < n && col < n ? b[kb * n + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < kTile; ++k) sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = sum;
}

__global__ void past_end_kernel(float* out, std::size_t n_plus_extra) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n_plus_extra) out[i] = 1.0f;  // the guard is against the wrong size on purpose
}

// Writes through an integer made into a pointer: no buffer is anywhere near it.
__global__ void wild_write_kernel(std::uintptr_t address) { *reinterpret_cast<int*>(address) = 1; }

// A barrier, then thread 7 writes through a wild pointer (on the emulator's fast path a kernel run
// in phases: its fault is reported as a fiber's is).
__global__ void wild_after_barrier_kernel(std::uintptr_t address) {
  __shared__ int ready;
  if (threadIdx.x == 0) ready = 1;
  __syncthreads();
  if (threadIdx.x == 7 && ready == 1) *reinterpret_cast<int*>(address) = 1;
}

__global__ void empty_kernel() {}

__global__ void divergent_kernel(float* out) {
  float v = 1.0f;
  if (threadIdx.x < 16) {
    v = __shfl_down_sync(0xffffffffu, v, 1);
  } else {
    __syncthreads();
  }
  out[threadIdx.x] = v;
}

dim3 to_dim3(Dims d) { return dim3(d.x, d.y, d.z); }

}  // namespace

void reverse_in_blocks(std::span<const int> in, std::span<int> out, int block, bool with_barrier) {
  const dim3 grid(blocks_for(in.size(), static_cast<unsigned>(block)));
  const dim3 threads(static_cast<unsigned>(block));
  if (with_barrier) {
    reverse_kernel<true><<<grid, threads>>>(in.data(), out.data(), in.size());
    check_launch("reverse_kernel<true>", grid, threads);
  } else {
    reverse_kernel<false><<<grid, threads>>>(in.data(), out.data(), in.size());
    check_launch("reverse_kernel<false>", grid, threads);
  }
}

void block_sums(std::span<const float> in, std::span<float> sums, int block) {
  const auto threads = static_cast<unsigned>(block);
  const unsigned grid = blocks_for(in.size(), threads);
  const std::size_t shared_bytes = threads * sizeof(float);
  block_sum_kernel<<<grid, threads, shared_bytes>>>(in.data(), sums.data(), in.size());
  check_launch("block_sum_kernel", grid, threads, shared_bytes);
}

void warp_sums(std::span<const float> in, std::span<float> sums, bool use_xor) {
  const dim3 grid(blocks_for(in.size(), 128));
  const dim3 threads(128);
  if (use_xor) {
    warp_sum_kernel<true><<<grid, threads>>>(in.data(), sums.data(), in.size());
    check_launch("warp_sum_kernel<true>", grid, threads);
  } else {
    warp_sum_kernel<false><<<grid, threads>>>(in.data(), sums.data(), in.size());
    check_launch("warp_sum_kernel<false>", grid, threads);
  }
}

void warp_votes(std::span<const float> in, std::span<unsigned> counts, std::span<int> any, std::span<int> all) {
  const dim3 grid(blocks_for(in.size(), 64));
  const dim3 threads(64);
  vote_kernel<<<grid, threads>>>(in.data(), counts.data(), any.data(), all.data(), in.size());
  check_launch("vote_kernel", grid, threads);
}

void count_above(std::span<const float> in, float threshold, std::span<unsigned> count, int block) {
  const dim3 grid(blocks_for(in.size(), static_cast<unsigned>(block)));
  const dim3 threads(static_cast<unsigned>(block));
  count_kernel<<<grid, threads>>>(in.data(), threshold, count.data(), in.size());
  check_launch("count_kernel", grid, threads);
}

void extremes(std::span<const int> in, std::span<int> extremes) {
  const dim3 grid(blocks_for(in.size(), 256));
  const dim3 threads(256);
  extremes_kernel<<<grid, threads>>>(in.data(), extremes.data(), in.size());
  check_launch("extremes_kernel", grid, threads);
}

void record_indices(std::span<unsigned> out, Dims grid, Dims block) {
  const std::size_t threads = std::size_t{grid.x} * grid.y * grid.z * block.x * block.y * block.z;
  if (out.size() != threads) throw std::invalid_argument("record_indices: out must hold one element per thread");
  index_kernel<<<to_dim3(grid), to_dim3(block)>>>(out.data());
  check_launch("index_kernel", to_dim3(grid), to_dim3(block));
}

void cpu_multiply_in_kernel_file(std::span<const float> a, std::span<const float> b, std::span<float> c, int n) {
  multiply_on_cpu(a.data(), b.data(), c.data(), n);
}

void tiled_matmul(std::span<const float> a, std::span<const float> b, std::span<float> c, int n) {
  const unsigned tiles = blocks_for(static_cast<std::size_t>(n), kTile);
  tiled_matmul_kernel<<<dim3(tiles, tiles), dim3(kTile, kTile)>>>(a.data(), b.data(), c.data(), n);
  check_launch("tiled_matmul_kernel", dim3(tiles, tiles), dim3(kTile, kTile));
}

void write_past_end(std::span<float> out, int extra) {
  const std::size_t total = out.size() + static_cast<std::size_t>(extra);
  past_end_kernel<<<dim3(blocks_for(total, 128)), dim3(128)>>>(out.data(), total);
  check_launch("past_end_kernel", dim3(blocks_for(total, 128)), dim3(128));
}

void write_wild(std::uintptr_t address) {
  wild_write_kernel<<<1, 32>>>(address);
  check_launch("wild_write_kernel", dim3(1), dim3(32));
}

void write_wild_after_barrier(std::uintptr_t address) {
  wild_after_barrier_kernel<<<2, 64>>>(address);
  check_launch("wild_after_barrier_kernel", dim3(2), dim3(64));
}

void empty_launch(Dims grid, Dims block, std::size_t shared_bytes) {
  empty_kernel<<<to_dim3(grid), to_dim3(block), shared_bytes>>>();
  check_launch("empty_kernel", to_dim3(grid), to_dim3(block), shared_bytes);
}

void divergent_collectives(std::span<float> out) {
  divergent_kernel<<<dim3(1), dim3(32)>>>(out.data());
  check_launch("divergent_kernel", dim3(1), dim3(32));
}

}  // namespace gpulab::test_kernels
