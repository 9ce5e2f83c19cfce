#pragma once
// Sigmoid, y[i] = σ(x[i]) = 1 / (1 + e^-x[i]): the CPU versions and the GPU launchers.
#include <cstddef>
#include <span>
#include <vector>

namespace gpulab::sigmoid {

// One thread, a plain loop.
void cpu_loop(std::span<const float> x, std::span<float> y);
// Every core (OpenMP).
void cpu_threads(std::span<const float> x, std::span<float> y);
// The textbook form e^x / (1 + e^x), for the lesson: it returns NaN for x >= 89 (inf / inf).
float unstable(float x);
// The edges of σ's arithmetic every kernel must get right (the lesson's tests and the grader's):
// signed zeros, where e^-x overflows or vanishes (±100, ±1e30, ±inf, ±FLT_MAX), denormals, NaN.
std::vector<float> edge_values();

}  // namespace gpulab::sigmoid

// The GPU launchers: spans of device memory, queued on the device the thread chose (common/backend.hpp).
namespace gpulab::sigmoid {

// One pass, one thread per element, σ from a __device__ function with expf.
void fused(std::span<const float> x, std::span<float> y, int block);
// The same with the fast intrinsic __expf: fewer instructions, a larger error.
void fused_fast(std::span<const float> x, std::span<float> y, int block);
// One pass, grid-stride with float4 loads and stores.
void fused_float4(std::span<const float> x, std::span<float> y, int block);
// Three kernels, three passes over memory: y = e^-x, then y = 1 + y, then y = 1 / y.
void unfused(std::span<const float> x, std::span<float> y, int block);

}  // namespace gpulab::sigmoid
