// Exercise 01 — your first kernel, and the launch that gives every element a thread.
//
// Write add_yours so that c[i] = a[i] + b[i] for every i < n, and pick the grid in vector_add()
// so that every element gets a thread. Then run, time and grade it:
//   lesson01_vector_add --variant yours --backend emulated --n 1000
//   gpulab_grade --lesson 01          (or the Grade button in the app)
// Stuck? The lesson's text has hints, from a nudge to nearly the answer (in the app: one at a time).
#include <span>

#include "common/launch.cuh"
#include "exercises/exercises.hpp"

namespace gpulab::exercises {

__global__ void add_yours(const float* a, const float* b, float* c, std::size_t n) {
  // SOLUTION: the blocks before this one hold blockIdx.x * blockDim.x threads.
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  // The last block reaches past the end of the array unless n is a multiple of the block.
  if (i < n) c[i] = a[i] + b[i];
}

void vector_add(std::span<const float> a, std::span<const float> b, std::span<float> c, int block) {
  if (c.empty()) return;  // a launch of zero blocks is an error, and there is nothing to do
  const auto threads = static_cast<unsigned int>(block);
  // SOLUTION: n / threads rounded up, so that a last, partly filled block takes the remainder.
  const auto blocks = static_cast<unsigned int>((c.size() + threads - 1) / threads);
  add_yours<<<blocks, threads>>>(a.data(), b.data(), c.data(), c.size());
  check_launch("add_yours", blocks, threads);
}

}  // namespace gpulab::exercises
