// Scan on the CPU: a running sum, the standard library's, and two passes over every core.
#include <omp.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "scan/scan.hpp"

namespace gpulab::scan {

void cpu_sequential(std::span<const unsigned int> x, std::span<unsigned int> y, bool exclusive) {
  unsigned int sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (exclusive) y[i] = sum;
    sum += x[i];
    if (!exclusive) y[i] = sum;
  }
}

void cpu_std(std::span<const unsigned int> x, std::span<unsigned int> y, bool exclusive) {
  if (exclusive) {
    std::exclusive_scan(x.begin(), x.end(), y.begin(), 0u);
  } else {
    std::inclusive_scan(x.begin(), x.end(), y.begin());
  }
}

// Pass 1: each thread sums its slice. Between: the slices' sums scanned (a few dozen). Pass 2:
// each thread scans its slice starting from its offset. Every element is read twice.
void cpu_threads(std::span<const unsigned int> x, std::span<unsigned int> y, bool exclusive) {
  std::vector<unsigned int> offsets(static_cast<std::size_t>(omp_get_max_threads()) + 1, 0u);
#pragma omp parallel
  {
    const auto count = static_cast<std::size_t>(omp_get_num_threads());
    const auto me = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t begin = x.size() * me / count, end = x.size() * (me + 1) / count;
    offsets[me + 1] =
        std::reduce(x.begin() + static_cast<std::ptrdiff_t>(begin), x.begin() + static_cast<std::ptrdiff_t>(end), 0u);
#pragma omp barrier
#pragma omp single
    std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
    cpu_sequential(x.subspan(begin, end - begin), y.subspan(begin, end - begin), exclusive);
    for (std::size_t i = begin; i < end; ++i) y[i] += offsets[me];
  }
}

void compact_cpu(std::span<const unsigned int> x, std::span<unsigned int> y, unsigned int below) {
  const auto end = std::copy_if(x.begin(), x.end(), y.begin() + 1, [below](unsigned int v) { return v < below; });
  y[0] = static_cast<unsigned int>(end - (y.begin() + 1));
}

}  // namespace gpulab::scan
