#pragma once
// Vector add, c[i] = a[i] + b[i]: the CPU versions and the GPU launchers, with the same arguments.
#include <cstddef>
#include <span>

namespace gpulab::vector_add {

// One thread, a plain loop.
void cpu_loop(std::span<const float> a, std::span<const float> b, std::span<float> c);
// Every core (OpenMP), each thread's loop vectorised by the compiler.
void cpu_threads(std::span<const float> a, std::span<const float> b, std::span<float> c);

}  // namespace gpulab::vector_add

// The GPU launchers: spans of device memory, queued on the device the thread chose (common/backend.hpp).
namespace gpulab::vector_add {

// A single block of n threads (`block` is ignored): works only while n <= the device's max
// threads per block.
void single_block(std::span<const float> a, std::span<const float> b, std::span<float> c, int block);
// One thread per element over ceil(n / block) blocks, with a bounds guard.
void blocks(std::span<const float> a, std::span<const float> b, std::span<float> c, int block);
// A grid sized to fill the GPU once; each thread strides over the array.
void grid_stride(std::span<const float> a, std::span<const float> b, std::span<float> c, int block);
// The grid-stride loop with 16-byte float4 loads and stores, plus a tail for any n.
void grid_stride_float4(std::span<const float> a, std::span<const float> b, std::span<float> c, int block);

}  // namespace gpulab::vector_add
