// cub::DeviceSelect::If, the CUDA library's stream compaction, as the baseline (GPU only).
#include <cub/device/device_select.cuh>

#include "common/cuda_check.hpp"
#include "common/library_scratch.hpp"
#include "scan/scan.hpp"

namespace gpulab::scan {

namespace {
struct Below {
  unsigned int below;
  __device__ bool operator()(const unsigned int& v) const { return v < below; }
};
}  // namespace

void compact_cub(std::span<const unsigned int> x, std::span<unsigned int> y, unsigned int below) {
  const auto n = static_cast<std::int64_t>(x.size());
  if (n == 0) {
    GPULAB_CUDA_CHECK(cudaMemsetAsync(y.data(), 0, sizeof(unsigned int), 0));
    return;
  }
  std::size_t bytes = 0;  // a first call with no storage asks how much it needs
  // y[0] receives the count (CUB's num_selected_out), y[1 …] the kept elements.
  GPULAB_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, x.data(), y.data() + 1, y.data(), n, Below{below}));
  GPULAB_CUDA_CHECK(
      cub::DeviceSelect::If(library_scratch(bytes, 1), bytes, x.data(), y.data() + 1, y.data(), n, Below{below}));
}

}  // namespace gpulab::scan
