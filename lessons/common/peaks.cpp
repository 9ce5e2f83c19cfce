#include "common/peaks.hpp"

#include <algorithm>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_info.hpp"
#include "common/fp32_peak.hpp"
#include "common/gpu_memory.hpp"
#include "common/stats.hpp"
#include "common/stream_hold.hpp"

namespace gpulab {

namespace {

// A device-to-device copy of `bytes`, timed as the kernels are (GpuClock): its start event held
// until the copy is queued behind it.
double measure_copy(std::size_t bytes) {
  gpu::DeviceBuffer<unsigned char> src(bytes, "copy source"), dst(bytes, "copy destination");
  src.fill_bytes(1);
  cudaEvent_t start = nullptr, stop = nullptr;
  GPULAB_CUDA_CHECK(cudaEventCreate(&start));
  GPULAB_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> gbps;
  gpu::StreamHold hold;
  for (int i = 0; i < 23; ++i) {
    hold.hold(100000);
    GPULAB_CUDA_CHECK(cudaEventRecord(start));
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice));
    GPULAB_CUDA_CHECK(cudaEventRecord(stop));
    hold.release();
    GPULAB_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    GPULAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (i >= 3) gbps.push_back(2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9);  // 3 warm-ups
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return summarize(gbps).median;
}

// A copy large enough to leave every cache far behind (1 GiB, as the reference numbers use), or
// less on a GPU with little free memory.
Peaks measure_large_copy() {
  const std::size_t free = device_free_memory();
  const std::size_t bytes = std::max<std::size_t>(std::min<std::size_t>(std::size_t{1} << 30, free / 4), 1 << 20);
  return {measure_copy(bytes), static_cast<double>(bytes)};
}

}  // namespace

std::optional<Peaks> measured_peaks() {
  static const std::optional<Peaks> peaks = []() -> std::optional<Peaks> {
    if (!device_info().available) return std::nullopt;
    Peaks p = measure_large_copy();
    p.fp32_gflops = gpu::measure_fp32_gflops();
    return p;
  }();
  return peaks;
}

std::optional<double> measured_copy_gbps(std::size_t bytes) {
  if (!device_info().available || bytes == 0) return std::nullopt;
  return measure_copy(bytes);
}

}  // namespace gpulab
