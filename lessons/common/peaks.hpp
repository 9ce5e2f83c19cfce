#pragma once
// The device's ceilings, measured once per process on the machine at hand, so that every GPU row
// can say how close it came ("% of measured peak") instead of quoting a datasheet.
#include <optional>

namespace gpulab {

struct Peaks {
  double copy_gbps = 0;    // cudaMemcpy device -> device, bytes read + written per second / 1e9
  double copy_bytes = 0;   // the size of the buffer it copied
  double fp32_gflops = 0;  // fused multiply-adds on registers, every multiprocessor (2 FLOPs each)
};

// Measures once (the first call) and returns the cached answer; nullopt without a GPU.
std::optional<Peaks> measured_peaks();

}  // namespace gpulab
