#include "common/peaks.hpp"

#include <algorithm>
#include <vector>

#include "base/device_info.hpp"
#include "common/cuda_check.hpp"
#include "common/event_clock.hpp"
#include "common/fp32_peak.hpp"
#include "common/gpu_memory.hpp"
#include "common/launch.cuh"
#include "common/stats.hpp"

namespace gpulab {

namespace {

// The milliseconds of `work` on the default stream, each of `reps` times after `warmups` untimed
// ones, timed by the rows' own clock (event_clock.hpp) as a compute phase: its start event held
// until the work is queued behind it, so the launch is not timed.
template <typename Work>
std::vector<double> held_times(int warmups, int reps, Work work) {
  EventClock<ThrowOnError> clock{ThrowOnError{}};
  std::vector<double> ms;
  for (int i = 0; i < warmups + reps; ++i) {
    clock.hold_next();
    clock.mark(0);
    clock.mark(1);
    work();
    clock.mark(2);
    clock.mark(3);
    clock.wait();
    if (i >= warmups) ms.push_back(clock.phases().kernel_ms);
  }
  return ms;
}

// A device-to-device copy of `bytes`: GB/s read and written.
double measure_copy(std::size_t bytes) {
  gpu::DeviceBuffer<unsigned char> src(bytes, "copy source"), dst(bytes, "copy destination");
  src.fill_bytes(1);
  std::vector<double> gbps;
  for (const double ms : held_times(3, 20, [&] {
         GPULAB_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice));
       })) {
    gbps.push_back(2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9);
  }
  return summarize(gbps).median;
}

// Fused multiply-adds on every multiprocessor, 4 blocks' worth each: GFLOP/s (two warm-ups, as
// the clocks ramp up).
double measure_fp32_gflops() {
  gpu::DeviceBuffer<float> out(1, "fp32 peak output");
  const int threads = 256;
  const int blocks = device_attribute(cudaDevAttrMultiProcessorCount) *
                     (device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor) / threads) * 4;
  std::vector<double> rates;
  for (const double ms : held_times(2, 6, [&] { gpu::launch_fma_chains(out.data(), blocks, threads); }))
    rates.push_back(gpu::fma_chains_flops(blocks, threads) / (ms * 1e-3) / 1e9);
  return summarize(rates).median;
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
    p.fp32_gflops = measure_fp32_gflops();
    return p;
  }();
  return peaks;
}

std::optional<double> measured_copy_gbps(std::size_t bytes) {
  if (!device_info().available || bytes == 0) return std::nullopt;
  return measure_copy(bytes);
}

}  // namespace gpulab
