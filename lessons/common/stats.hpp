#pragma once
// Summary statistics of repeated timings.
#include <cstddef>
#include <span>

namespace gpulab {

struct Stats {
  double median = 0, min = 0, max = 0, mean = 0;
  std::size_t count = 0;
};

// The median of an even count is the mean of the two middle values. Empty input gives zeros.
Stats summarize(std::span<const double> samples);

}  // namespace gpulab
