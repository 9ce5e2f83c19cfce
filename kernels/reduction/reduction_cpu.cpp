// Reduction on the CPU: the same sum in three orders.
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "reduction/reduction.hpp"

namespace gpulab::reduction {

namespace {

constexpr std::size_t kLeaf = 256;  // elements a leaf of the pairwise tree sums
constexpr std::size_t kLanes = 8;   // accumulators: one AVX register of floats

// A leaf: 8 running sums, element i into sum i % 8 — the compiler keeps them in one vector
// register and adds 8 elements an instruction (a single running sum could not be vectorised
// without changing the order of the additions, which the compiler may not do for floats).
float leaf(const float* x, std::size_t n) {
  float lanes[kLanes] = {};
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (std::size_t j = 0; j < kLanes; ++j) lanes[j] += x[i + j];
  }
  for (; i < n; ++i) lanes[i % kLanes] += x[i];
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

float pairwise(const float* x, std::size_t n) {
  if (n <= kLeaf) return leaf(x, n);
  const std::size_t half = n / 2;
  return pairwise(x, half) + pairwise(x + half, n - half);
}

}  // namespace

void cpu_sequential(std::span<const float> x, std::span<float> sum) {
  float s = 0.0f;
  for (const float v : x) s += v;
  sum[0] = s;
}

void cpu_pairwise(std::span<const float> x, std::span<float> sum) { sum[0] = pairwise(x.data(), x.size()); }

void cpu_threads(std::span<const float> x, std::span<float> sum) {
  std::vector<float> slices(static_cast<std::size_t>(omp_get_max_threads()), 0.0f);
#pragma omp parallel
  {
    const auto count = static_cast<std::size_t>(omp_get_num_threads());
    const auto me = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t begin = x.size() * me / count, end = x.size() * (me + 1) / count;
    slices[me] = pairwise(x.data() + begin, end - begin);
  }
  float s = 0.0f;
  for (const float v : slices) s += v;  // in order: the same result every run
  sum[0] = s;
}

}  // namespace gpulab::reduction
