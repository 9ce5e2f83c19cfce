// Histogram on the CPU: one thread, then every core with a private histogram each.
#include <omp.h>

#include <algorithm>
#include <array>

#include "histogram/histogram.hpp"

namespace gpulab::histogram {

void cpu_sequential(std::span<const unsigned char> x, std::span<unsigned int> bins) {
  std::fill(bins.begin(), bins.end(), 0u);
  for (const unsigned char v : x) ++bins[v];
}

// Threads incrementing one shared array would need atomics and fight over its cache lines (the
// GPU's problem too); each counts into its own array, and the arrays are added once.
void cpu_threads(std::span<const unsigned char> x, std::span<unsigned int> bins) {
  std::fill(bins.begin(), bins.end(), 0u);
  const auto n = static_cast<std::ptrdiff_t>(x.size());
  const unsigned char* data = x.data();
  unsigned int* total = bins.data();
#pragma omp parallel
  {
    std::array<unsigned int, kBins> mine{};
#pragma omp for schedule(static) nowait
    for (std::ptrdiff_t i = 0; i < n; ++i) ++mine[data[i]];
#pragma omp critical
    for (int b = 0; b < kBins; ++b) total[b] += mine[static_cast<std::size_t>(b)];
  }
}

}  // namespace gpulab::histogram
