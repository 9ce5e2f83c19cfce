#pragma once
// The device's ceilings, measured once per process on the machine at hand, so that every GPU row
// can say how close it came ("% of measured peak") instead of quoting a datasheet.
#include <cstddef>
#include <optional>

namespace gpulab {

struct Peaks {
  double copy_gbps = 0;    // cudaMemcpy device -> device, bytes read + written per second / 1e9
  double copy_bytes = 0;   // the size of the buffer it copied
  double fp32_gflops = 0;  // fused multiply-adds on registers, every multiprocessor (2 FLOPs each)
};

// Measures once (the first call) and returns the cached answer; nullopt without a GPU.
std::optional<Peaks> measured_peaks();

// A copy of `bytes` (device to device), timed as the kernels are: the median of 20 after 3
// warm-ups, in bytes read + written per second / 1e9 — the ceiling of a kernel that reads and
// writes that many bytes once, which a small copy reaches less of than measured_peaks' large one.
// Measured at each call; nullopt without a GPU.
std::optional<double> measured_copy_gbps(std::size_t bytes);

}  // namespace gpulab
