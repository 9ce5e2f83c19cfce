// cub::DeviceReduce::Sum, the CUDA library's reduction, as the ladder's baseline (GPU only).
#include <cub/device/device_reduce.cuh>

#include <stdexcept>

#include "common/cuda_check.hpp"
#include "common/library_scratch.hpp"
#include "reduction/reduction.hpp"

namespace gpulab::reduction {

void cub_sum(std::span<const float> x, std::span<float> sum) {
  if (sum.size() != 1) throw std::invalid_argument("reduction: sum must hold exactly one float");
  std::size_t bytes = 0;  // a first call with no storage asks how much it needs
  GPULAB_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, x.data(), sum.data(), static_cast<std::int64_t>(x.size())));
  GPULAB_CUDA_CHECK(
      cub::DeviceReduce::Sum(library_scratch(bytes), bytes, x.data(), sum.data(), static_cast<std::int64_t>(x.size())));
}

}  // namespace gpulab::reduction
