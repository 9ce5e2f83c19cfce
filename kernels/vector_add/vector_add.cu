// Vector add on the GPU, c[i] = a[i] + b[i], from the simplest kernel to the fastest.
//
//   add_single_block        one block of n threads (fails past the block-size limit)
//   add_blocks              one thread per element over many blocks, with a bounds guard
//   add_grid_stride         a grid that fills the GPU once; each thread loops over the array
//   add_grid_stride_float4  the same loop moving 16 bytes per load and store
//
// Run them: lesson01_vector_add --variant all --n 1000000
//
// This file is plain CUDA. It builds twice, by nvcc for the GPU and as C++ against GPU Lab's
// emulator, and both builds live in one program (cmake/GpuLab.cmake says how).
#include <cstdint>
#include <stdexcept>
#include <string>

#include "base/launch_description.hpp"
#include "common/launch.cuh"
#include "vector_add/vector_add.hpp"

namespace gpulab::vector_add {

// ---------------------------------------------------------------- kernels

// [snippet:add_single_block]
// One thread per element, all in one block: thread i adds element i. A block holds at most
// 1024 threads, so this only works for n <= 1024.
__global__ void add_single_block(const float* a, const float* b, float* c, std::size_t n) {
  const unsigned int i = threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
// [/snippet]

// [snippet:add_blocks]
// One thread per element over many blocks. Each thread finds its element from its block's
// position and its own: i = blockIdx.x * blockDim.x + threadIdx.x. The last block may run past
// the end of the array, so the guard `i < n` is what keeps it in bounds.
__global__ void add_blocks(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
// [/snippet]

// [snippet:add_grid_stride]
// What it adds: the grid no longer grows with n. It is sized to fill every multiprocessor once,
// and each thread strides by the whole grid's width, so any n works, fewer blocks are scheduled,
// and consecutive threads still touch consecutive elements (coalesced).
__global__ void add_grid_stride(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}
// [/snippet]

// [snippet:add_grid_stride_float4]
// What it adds: each load and store moves a float4 (16 bytes) instead of a float, so a warp
// issues a quarter of the memory instructions for the same bytes, with more bytes in flight.
// float4 needs 16-byte alignment (cudaMalloc gives 256). The last n % 4 elements, which do not
// fill a float4, are added one by one by the first threads of the grid.
__global__ void add_grid_stride_float4(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  const std::size_t first = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t n4 = n / 4;
  const auto* a4 = reinterpret_cast<const float4*>(a);
  const auto* b4 = reinterpret_cast<const float4*>(b);
  auto* c4 = reinterpret_cast<float4*>(c);
  for (std::size_t i = first; i < n4; i += stride) {
    const float4 x = a4[i];
    const float4 y = b4[i];
    c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  for (std::size_t i = 4 * n4 + first; i < n; i += stride) c[i] = a[i] + b[i];
}
// [/snippet]

// ---------------------------------------------------------------- launchers

namespace {

void check_sizes(std::span<const float> a, std::span<const float> b, std::span<float> c) {
  if (a.size() != c.size() || b.size() != c.size()) {
    throw std::invalid_argument("vector_add: a, b and c must have the same size (" + std::to_string(a.size()) + ", " +
                                std::to_string(b.size()) + ", " + std::to_string(c.size()) + ")");
  }
}

}  // namespace

void single_block(std::span<const float> a, std::span<const float> b, std::span<float> c, [[maybe_unused]] int block) {
  check_sizes(a, b, c);
  if (c.empty()) return;  // a launch of zero threads is an error; nothing to do anyway
  // Asks for exactly n threads (saturated, never wrapped): CUDA itself refuses n > its limit.
  const unsigned int threads = blocks_for(c.size(), 1);
  add_single_block<<<1, threads>>>(a.data(), b.data(), c.data(), c.size());
  check_launch("add_single_block", 1, threads);
}

// [snippet:launch_blocks]
void blocks(std::span<const float> a, std::span<const float> b, std::span<float> c, int block) {
  check_sizes(a, b, c);
  if (c.empty()) return;
  const auto threads = static_cast<unsigned int>(block);
  const unsigned int grid = blocks_for(c.size(), threads);  // ceil(n / threads): the last block may be partial
  add_blocks<<<grid, threads>>>(a.data(), b.data(), c.data(), c.size());
  check_launch("add_blocks", grid, threads);
}
// [/snippet]

void grid_stride(std::span<const float> a, std::span<const float> b, std::span<float> c, int block) {
  check_sizes(a, b, c);
  if (c.empty()) return;
  const unsigned int grid = grid_to_fill(c.size(), block);
  const auto threads = static_cast<unsigned int>(block);
  add_grid_stride<<<grid, threads>>>(a.data(), b.data(), c.data(), c.size());
  check_launch("add_grid_stride", grid, threads);
}

void grid_stride_float4(std::span<const float> a, std::span<const float> b, std::span<float> c, int block) {
  check_sizes(a, b, c);
  if (c.empty()) return;
  // Sub-spans that start off a 16-byte boundary cannot be read as float4: take the scalar loop.
  if (!aligned16(a.data(), b.data(), c.data())) {
    grid_stride(a, b, c, block);
    return;
  }
  const std::size_t items = c.size() / 4 + 1;  // float4s, plus room for the tail
  const unsigned int grid = grid_to_fill(items, block);
  const auto threads = static_cast<unsigned int>(block);
  add_grid_stride_float4<<<grid, threads>>>(a.data(), b.data(), c.data(), c.size());
  check_launch("add_grid_stride_float4", grid, threads);
}

}  // namespace gpulab::vector_add
