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

// The GPU launchers take spans of *device* memory and return once the kernel is queued.
// vector_add.cu builds twice, for the GPU and for the emulator, so each launcher exists twice:
// gpulab::gpu::vector_add::blocks and gpulab::emulated::vector_add::blocks.
namespace gpulab::gpu::vector_add {
#include "vector_add/vector_add_launchers.inc"
}
namespace gpulab::emulated::vector_add {
#include "vector_add/vector_add_launchers.inc"
}
