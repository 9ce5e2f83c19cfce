// Exercise 02 — find your element in a 2-D grid of 2-D blocks, and cover an array larger than
// the grid.
//
// thread_hierarchy() launches a fixed grid of 4 × 2 blocks of 32 × (block / 32) threads, however
// long the array is. Write scale_yours so that y[i] = 2 x[i] + 1 for every i < n:
//   1. number the blocks and the threads in a block (x fastest, as CUDA does),
//   2. from them, this thread's first element,
//   3. loop over the array in steps of the whole grid's threads (a grid-stride loop).
//   lesson02_thread_hierarchy --variant yours --backend emulated --n 100000
//   gpulab_grade --lesson 02
#include <algorithm>
#include <span>

#include "common/launch.cuh"
#include "exercises/exercises.hpp"

namespace gpulab::exercises {

__global__ void scale_yours(const float* x, float* y, std::size_t n) {
  // SOLUTION
  const std::size_t block = std::size_t{blockIdx.y} * gridDim.x + blockIdx.x;
  const unsigned int threads_per_block = blockDim.x * blockDim.y;
  const unsigned int thread = threadIdx.y * blockDim.x + threadIdx.x;
  const std::size_t grid_threads = std::size_t{gridDim.x} * gridDim.y * threads_per_block;
  for (std::size_t i = block * threads_per_block + thread; i < n; i += grid_threads) y[i] = 2.0f * x[i] + 1.0f;
}

void thread_hierarchy(std::span<const float> x, std::span<float> y, int block) {
  if (y.empty()) return;
  // Given: 8 blocks whatever n is, so most elements are reached only by looping.
  const dim3 threads(32, static_cast<unsigned int>(std::max(1, block / 32)));
  const dim3 grid(4, 2);
  scale_yours<<<grid, threads>>>(x.data(), y.data(), y.size());
  check_launch("scale_yours", grid, threads);
}

}  // namespace gpulab::exercises
