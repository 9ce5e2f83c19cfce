// Sigmoid on the GPU, y = σ(x) = 1 / (1 + e^-x), element by element.
//
//   sigmoid / sigmoid_fast   __device__ functions: the math, callable from any kernel
//   fused_kernel             one pass: read x, write σ(x)
//   fused_fast_kernel        the same with __expf
//   fused_float4_kernel      one pass, grid-stride, 16-byte loads and stores
//   exp_neg, add_one, reciprocal   the unfused version: three kernels, three passes
//
// Run them: lesson04_sigmoid --variant all --n 1000000
// Like every kernel file, this one is plain CUDA and builds for the GPU and for the emulator.
#include <stdexcept>
#include <string>

#include "base/launch_description.hpp"
#include "common/launch.cuh"
#include "sigmoid/sigmoid.hpp"

namespace gpulab::sigmoid {

// ---------------------------------------------------------------- device functions

// [snippet:device_functions]
// A __device__ function runs on the GPU and is called from kernels (or other device functions),
// not from the host; the compiler usually inlines it. This form of σ is stable for every x:
// for x -> -inf, e^-x overflows to inf and 1 / (1 + inf) = 0; for x -> +inf, e^-x -> 0 and the
// result is 1. The textbook e^x / (1 + e^x) would give inf / inf = NaN from x = 89 on.
__device__ inline float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

// __expf is the hardware's fast approximation (a base-2 exponential and a multiply): a few
// instructions instead of expf's dozen, with an error that grows with |x|.
__device__ inline float sigmoid_fast(float x) { return 1.0f / (1.0f + __expf(-x)); }
// [/snippet]

// ---------------------------------------------------------------- kernels

// [snippet:fused_kernel]
// One pass: each thread reads one x and writes one y. 8 bytes of memory traffic per element,
// the least sigmoid can move.
__global__ void fused_kernel(const float* x, float* y, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sigmoid(x[i]);
}
// [/snippet]

__global__ void fused_fast_kernel(const float* x, float* y, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sigmoid_fast(x[i]);
}

// What it adds over fused_kernel: the grid-stride loop and float4 accesses of lesson 01, so each
// memory instruction moves 16 bytes. The last n % 4 elements are done one by one.
__global__ void fused_float4_kernel(const float* x, float* y, std::size_t n) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  const std::size_t first = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t n4 = n / 4;
  const auto* x4 = reinterpret_cast<const float4*>(x);
  auto* y4 = reinterpret_cast<float4*>(y);
  for (std::size_t i = first; i < n4; i += stride) {
    const float4 v = x4[i];
    y4[i] = make_float4(sigmoid(v.x), sigmoid(v.y), sigmoid(v.z), sigmoid(v.w));
  }
  for (std::size_t i = 4 * n4 + first; i < n; i += stride) y[i] = sigmoid(x[i]);
}

// [snippet:unfused_kernels]
// The unfused version: the same arithmetic as three element-wise kernels, as a framework that
// runs one operator at a time would do it. Each pass reads and writes the whole array, so the
// three move 24 bytes per element where the fused kernel moves 8.
__global__ void exp_neg_kernel(const float* x, float* y, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) y[i] = expf(-x[i]);
}
__global__ void add_one_kernel(float* y, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0f + y[i];
}
__global__ void reciprocal_kernel(float* y, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0f / y[i];
}
// [/snippet]

// ---------------------------------------------------------------- launchers

namespace {

void check_sizes(std::span<const float> x, std::span<float> y) {
  if (x.size() != y.size()) {
    throw std::invalid_argument("sigmoid: x and y must have the same size (" + std::to_string(x.size()) + ", " +
                                std::to_string(y.size()) + ")");
  }
}

}  // namespace

void fused(std::span<const float> x, std::span<float> y, int block) {
  check_sizes(x, y);
  if (y.empty()) return;
  fused_kernel<<<blocks_for(y.size(), static_cast<unsigned int>(block)), static_cast<unsigned int>(block)>>>(
      x.data(), y.data(), y.size());
  check_launch("fused_kernel", blocks_for(y.size(), static_cast<unsigned int>(block)),
               static_cast<unsigned int>(block));
}

void fused_fast(std::span<const float> x, std::span<float> y, int block) {
  check_sizes(x, y);
  if (y.empty()) return;
  fused_fast_kernel<<<blocks_for(y.size(), static_cast<unsigned int>(block)), static_cast<unsigned int>(block)>>>(
      x.data(), y.data(), y.size());
  check_launch("fused_fast_kernel", blocks_for(y.size(), static_cast<unsigned int>(block)),
               static_cast<unsigned int>(block));
}

void fused_float4(std::span<const float> x, std::span<float> y, int block) {
  check_sizes(x, y);
  if (y.empty()) return;
  if (!aligned16(x.data(), y.data())) {
    fused(x, y, block);  // off a 16-byte boundary float4 cannot be used
    return;
  }
  const dim3 grid(grid_to_fill(y.size() / 4 + 1, block));
  const dim3 threads(static_cast<unsigned int>(block));
  fused_float4_kernel<<<grid, threads>>>(x.data(), y.data(), y.size());
  check_launch("fused_float4_kernel", grid, threads);
}

void unfused(std::span<const float> x, std::span<float> y, int block) {
  check_sizes(x, y);
  if (y.empty()) return;
  const dim3 threads(static_cast<unsigned int>(block));
  const dim3 grid(blocks_for(y.size(), threads.x));
  exp_neg_kernel<<<grid, threads>>>(x.data(), y.data(), y.size());
  check_launch("exp_neg_kernel", grid, threads);
  add_one_kernel<<<grid, threads>>>(y.data(), y.size());
  check_launch("add_one_kernel", grid, threads);
  reciprocal_kernel<<<grid, threads>>>(y.data(), y.size());
  check_launch("reciprocal_kernel", grid, threads);
}

}  // namespace gpulab::sigmoid
