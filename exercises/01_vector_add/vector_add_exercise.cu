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
  // TODO 1: which element is this thread's? Built-in variables: blockIdx.x, blockDim.x, threadIdx.x.
  // TODO 2: threads past the end of the array (i >= n) must not touch it.
  // TODO 3: add.
}

void vector_add(std::span<const float> a, std::span<const float> b, std::span<float> c, int block) {
  if (c.empty()) return;  // a launch of zero blocks is an error, and there is nothing to do
  const auto threads = static_cast<unsigned int>(block);
  // TODO 4: enough blocks of `threads` threads for every one of the c.size() elements.
  const auto blocks = static_cast<unsigned int>(1);
  add_yours<<<blocks, threads>>>(a.data(), b.data(), c.data(), c.size());
  check_launch("add_yours", blocks, threads);
}

}  // namespace gpulab::exercises
