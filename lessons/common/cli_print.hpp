#pragma once
// What a lesson executable prints besides its table (common/cli.cpp): the header that says where
// the rows run and what the GPU's ceilings measured, and the emulator's memory counts.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "base/device_info.hpp"
#include "common/lesson.hpp"
#include "common/results.hpp"

namespace gpulab {

// "1024 threads per block, blocks up to 1024 x 1024 x 64, ...": a device's launch limits.
std::string limits_text(const DeviceInfo& d);

// The lesson, the GPU (its limits and measured ceilings when it runs rows), the emulator (when
// it runs rows) and the inputs' seed.
void print_header(std::FILE* out, const Lesson& lesson, const DeviceInfo& device, bool gpu_runs, bool emulated_runs,
                  std::uint64_t seed);

// Each emulated row's memory counts (--memory-report), in Nsight Compute's terms.
void print_memory_report(std::FILE* out, const std::vector<Result>& results);

}  // namespace gpulab
