// Vector add on the CPU: the baselines the GPU kernels are measured against.
#include <cstddef>

#include "vector_add/vector_add.hpp"

namespace gpulab::vector_add {

void cpu_loop(std::span<const float> a, std::span<const float> b, std::span<float> c) {
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = a[i] + b[i];
}

// The loop is split over every core; `simd` asks the compiler to vectorise each thread's part.
// Memory bandwidth, not arithmetic, is the limit: a few cores already saturate it.
void cpu_threads(std::span<const float> a, std::span<const float> b, std::span<float> c) {
  const float* pa = a.data();
  const float* pb = b.data();
  float* pc = c.data();
  const auto n = static_cast<std::ptrdiff_t>(c.size());
#pragma omp parallel for simd schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) pc[i] = pa[i] + pb[i];
}

}  // namespace gpulab::vector_add
