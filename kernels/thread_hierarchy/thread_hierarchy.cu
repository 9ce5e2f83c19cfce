// The thread hierarchy: a grid of blocks of threads, and how a thread finds its element.
// Every kernel computes y[i] = 2 x[i] + 1, so only the way threads are laid out differs.
//
//   scale_one_block    <<<1, n>>>: works up to 1024 threads, refused beyond
//   scale_blocks       the global index blockIdx.x * blockDim.x + threadIdx.x
//   scale_grid_2d      a 2-D grid: the block's number from two coordinates
//   scale_block_3d     3-D blocks: the thread's number inside its block from three
//   scale_grid_stride  a grid that fills the GPU once, each thread looping
//   record             what every launched thread did, for the thread map
//
// Run them: lesson02_thread_hierarchy --variant all --n 1000000
// Like every kernel file, this one is plain CUDA and builds for the GPU and for the emulator.
#include <stdexcept>
#include <string>

#include "base/launch_description.hpp"
#include "common/launch.cuh"
#include "thread_hierarchy/thread_hierarchy.hpp"

namespace gpulab::thread_hierarchy {

// ---------------------------------------------------------------- kernels

__device__ inline float scale(float x) { return 2.0f * x + 1.0f; }

// [snippet:one_block]
// All threads in one block: thread i takes element i. A block holds at most 1024 threads.
__global__ void scale_one_block(const float* x, float* y, std::size_t n) {
  const unsigned int i = threadIdx.x;
  if (i < n) y[i] = scale(x[i]);
}
// [/snippet]

// [snippet:global_index]
// The global index: the blocks before this one hold blockIdx.x * blockDim.x threads, and this
// thread is number threadIdx.x in its own block.
__global__ void scale_blocks(const float* x, float* y, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scale(x[i]);
}
// [/snippet]

// [snippet:grid_2d]
// A 2-D grid: blocks are numbered row by row, blockIdx.y rows of gridDim.x blocks each.
__global__ void scale_grid_2d(const float* x, float* y, std::size_t n) {
  const std::size_t block = std::size_t{blockIdx.y} * gridDim.x + blockIdx.x;
  const std::size_t i = block * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scale(x[i]);
}
// [/snippet]

// [snippet:block_3d]
// 3-D blocks: inside its block a thread's number counts x fastest, then y, then z — the same
// order CUDA uses to cut a block into warps of 32.
__global__ void scale_block_3d(const float* x, float* y, std::size_t n) {
  const unsigned int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned int threads_per_block = blockDim.x * blockDim.y * blockDim.z;
  const std::size_t i = std::size_t{blockIdx.x} * threads_per_block + thread;
  if (i < n) y[i] = scale(x[i]);
}
// [/snippet]

// What it adds: a grid sized to the GPU, not to n (see lesson 01).
__global__ void scale_grid_stride(const float* x, float* y, std::size_t n) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = scale(x[i]);
}

// [snippet:record]
// Every launched thread writes down who it is and which element it took, or -1 when it fell
// past the end of the array: the bounds guard is what stops those threads.
__global__ void record(ThreadRecord* records, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  ThreadRecord r;
  r.block = blockIdx.x;
  r.thread = threadIdx.x;
  r.warp = threadIdx.x / warpSize;
  r.lane = threadIdx.x % warpSize;
  r.element = i < n ? static_cast<std::int64_t>(i) : -1;
  records[i] = r;  // one record per thread, so no guard here: the caller sized the array
}
// [/snippet]

// ---------------------------------------------------------------- launchers

namespace {

void check_sizes(std::span<const float> x, std::span<float> y) {
  if (x.size() != y.size()) {
    throw std::invalid_argument("thread_hierarchy: x and y must have the same size (" + std::to_string(x.size()) +
                                ", " + std::to_string(y.size()) + ")");
  }
}

constexpr unsigned int kGridRow = 256;  // blocks per row of the 2-D grid

}  // namespace

void one_block(std::span<const float> x, std::span<float> y, [[maybe_unused]] int block) {
  check_sizes(x, y);
  if (y.empty()) return;
  scale_one_block<<<dim3(1), dim3(blocks_for(y.size(), 1))>>>(x.data(), y.data(), y.size());
  check_launch("scale_one_block", dim3(1), dim3(blocks_for(y.size(), 1)));
}

void blocks_1d(std::span<const float> x, std::span<float> y, int block) {
  check_sizes(x, y);
  if (y.empty()) return;
  const auto threads = static_cast<unsigned int>(block);
  scale_blocks<<<dim3(blocks_for(y.size(), threads)), dim3(threads)>>>(x.data(), y.data(), y.size());
  check_launch("scale_blocks", dim3(blocks_for(y.size(), threads)), dim3(threads));
}

void grid_2d(std::span<const float> x, std::span<float> y, int block) {
  check_sizes(x, y);
  if (y.empty()) return;
  const auto threads = static_cast<unsigned int>(block);
  const unsigned int blocks = blocks_for(y.size(), threads);
  const dim3 grid(blocks < kGridRow ? blocks : kGridRow, blocks_for(blocks, kGridRow));
  scale_grid_2d<<<grid, dim3(threads)>>>(x.data(), y.data(), y.size());
  check_launch("scale_grid_2d", grid, dim3(threads));
}

void block_3d(std::span<const float> x, std::span<float> y, int block) {
  check_sizes(x, y);
  if (y.empty()) return;
  // 8 x 8 x (block / 64); blocks under 64 threads become 8 x (block / 8) x 1.
  const auto threads = static_cast<unsigned int>(block);
  const dim3 shape =
      threads >= 64 ? dim3(8, 8, threads / 64) : dim3(threads >= 8 ? 8 : threads, threads >= 8 ? threads / 8 : 1, 1);
  const unsigned int per_block = shape.x * shape.y * shape.z;
  scale_block_3d<<<dim3(blocks_for(y.size(), per_block)), shape>>>(x.data(), y.data(), y.size());
  check_launch("scale_block_3d", dim3(blocks_for(y.size(), per_block)), shape);
}

void grid_stride(std::span<const float> x, std::span<float> y, int block) {
  check_sizes(x, y);
  if (y.empty()) return;
  scale_grid_stride<<<dim3(grid_to_fill(y.size(), block)), dim3(static_cast<unsigned int>(block))>>>(x.data(), y.data(),
                                                                                                     y.size());
  check_launch("scale_grid_stride", dim3(grid_to_fill(y.size(), block)), dim3(static_cast<unsigned int>(block)));
}

double blocks_1d_occupancy(int block) { return occupancy(scale_blocks, block); }

void record_threads(std::span<ThreadRecord> records, std::size_t n, int block) {
  const auto threads = static_cast<unsigned int>(block);
  const unsigned int blocks = blocks_for(n, threads);
  if (records.size() != std::size_t{blocks} * threads) {
    throw std::invalid_argument("record_threads: records must hold one entry per launched thread (" +
                                std::to_string(std::size_t{blocks} * threads) + ")");
  }
  if (n == 0) return;
  record<<<blocks, threads>>>(records.data(), n);
  check_launch("record", blocks, threads);
}

}  // namespace gpulab::thread_hierarchy
