// cub::DeviceHistogram::HistogramEven, the CUDA library's histogram, as the ladder's baseline
// (GPU only).
#include <cub/device/device_histogram.cuh>

#include <stdexcept>

#include "common/cuda_check.hpp"
#include "common/library_scratch.hpp"
#include "histogram/histogram.hpp"

namespace gpulab::histogram {

void cub_histogram(std::span<const unsigned char> x, std::span<unsigned int> bins) {
  if (bins.size() != kBins) throw std::invalid_argument("histogram: bins must hold 256 counts");
  // 257 levels 0, 1, ..., 256: bin v holds the samples in [v, v + 1).
  const int levels = kBins + 1, lower = 0, upper = kBins;
  const auto n = static_cast<std::int64_t>(x.size());
  std::size_t bytes = 0;
  GPULAB_CUDA_CHECK(
      cub::DeviceHistogram::HistogramEven(nullptr, bytes, x.data(), bins.data(), levels, lower, upper, n));
  GPULAB_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(library_scratch(bytes), bytes, x.data(), bins.data(), levels,
                                                        lower, upper, n));
}

}  // namespace gpulab::histogram
