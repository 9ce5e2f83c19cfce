// cub::DeviceScan, the CUDA library's scan, as the ladder's baseline (GPU only).
#include <cub/device/device_scan.cuh>

#include "common/cuda_check.hpp"
#include "common/library_scratch.hpp"
#include "scan/scan.hpp"

namespace gpulab::scan {

void cub_scan(std::span<const unsigned int> x, std::span<unsigned int> y, bool exclusive) {
  const auto n = static_cast<std::int64_t>(x.size());
  std::size_t bytes = 0;  // a first call with no storage asks how much it needs
  if (exclusive) {
    GPULAB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, x.data(), y.data(), n));
    GPULAB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(library_scratch(bytes), bytes, x.data(), y.data(), n));
  } else {
    GPULAB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, x.data(), y.data(), n));
    GPULAB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(library_scratch(bytes), bytes, x.data(), y.data(), n));
  }
}

}  // namespace gpulab::scan
