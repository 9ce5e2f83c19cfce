// Sigmoid on the CPU: the baselines for the GPU kernels.
#include <cmath>
#include <cstddef>
#include <limits>

#include "sigmoid/sigmoid.hpp"

namespace gpulab::sigmoid {

namespace {
// Stable for every x: e^-x overflows to inf for x < -88 and 1 / (1 + inf) = 0; it never forms
// inf / inf.
inline float sigma(float x) { return 1.0f / (1.0f + std::exp(-x)); }
}  // namespace

void cpu_loop(std::span<const float> x, std::span<float> y) {
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = sigma(x[i]);
}

void cpu_threads(std::span<const float> x, std::span<float> y) {
  const auto n = static_cast<std::ptrdiff_t>(y.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) y[static_cast<std::size_t>(i)] = sigma(x[static_cast<std::size_t>(i)]);
}

float unstable(float x) { return std::exp(x) / (1.0f + std::exp(x)); }

std::vector<float> edge_values() {
  const float inf = std::numeric_limits<float>::infinity();
  const float big = std::numeric_limits<float>::max();
  return {0.0f,
          -0.0f,
          100.0f,
          -100.0f,
          1e30f,
          -1e30f,
          inf,
          -inf,
          88.7f,
          -88.7f,
          1e-30f,
          -1e-30f,
          big,
          -big,
          std::numeric_limits<float>::denorm_min(),
          std::numeric_limits<float>::quiet_NaN()};
}

}  // namespace gpulab::sigmoid
