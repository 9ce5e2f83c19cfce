// Exercise 04 — a __device__ function, called from a kernel: y = σ(x) = 1 / (1 + e^-x).
//
// Write sigmoid_yours (a __device__ function) and the kernel that applies it to every element.
// The grader also feeds it the edges of float arithmetic: ±0, ±1000, ±inf, NaN, the smallest
// numbers. σ must be 0 or 1 there, never NaN (unless x is NaN).
//   lesson04_sigmoid --variant yours --backend emulated --n 1000
//   gpulab_grade --lesson 04
#include <span>

#include "common/launch.cuh"
#include "exercises/exercises.hpp"

namespace gpulab::exercises {

__device__ inline float sigmoid_yours(float x) {
  // SOLUTION: for x -> -inf, e^-x overflows to inf and 1 / inf = 0; e^x / (1 + e^x) would be NaN.
  return 1.0f / (1.0f + expf(-x));
}

__global__ void sigmoid_kernel_yours(const float* x, float* y, std::size_t n) {
  // SOLUTION
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sigmoid_yours(x[i]);
}

void sigmoid(std::span<const float> x, std::span<float> y, int block) {
  if (y.empty()) return;
  const auto threads = static_cast<unsigned int>(block);
  const auto blocks = static_cast<unsigned int>((y.size() + threads - 1) / threads);
  sigmoid_kernel_yours<<<blocks, threads>>>(x.data(), y.data(), y.size());
  check_launch("sigmoid_kernel_yours", blocks, threads);
}

}  // namespace gpulab::exercises
