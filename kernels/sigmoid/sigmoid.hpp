#pragma once
// Sigmoid, y[i] = σ(x[i]) = 1 / (1 + e^-x[i]): the CPU versions and the GPU launchers.
#include <cstddef>
#include <span>

namespace gpulab::sigmoid {

// One thread, a plain loop.
void cpu_loop(std::span<const float> x, std::span<float> y);
// Every core (OpenMP).
void cpu_threads(std::span<const float> x, std::span<float> y);
// The textbook form e^x / (1 + e^x), for the lesson: it returns NaN for x >= 89 (inf / inf).
float unstable(float x);

}  // namespace gpulab::sigmoid

// The GPU launchers take spans of device memory; sigmoid.cu builds for the GPU and the emulator.
namespace gpulab::gpu::sigmoid {
#include "sigmoid/sigmoid_launchers.inc"
}
namespace gpulab::emulated::sigmoid {
#include "sigmoid/sigmoid_launchers.inc"
}
