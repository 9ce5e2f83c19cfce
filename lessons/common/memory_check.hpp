#pragma once
// Refuses, before any allocation, a size whose buffers cannot fit: a clear message naming the
// bytes needed and available, instead of a crash halfway through a sweep.
#include <cstddef>
#include <optional>
#include <string>

#include "common/lesson.hpp"

namespace gpulab {

std::size_t host_available_bytes();  // MemAvailable from /proc/meminfo (or free pages)

// "1.50 GB", "512 MB"
std::string format_bytes(double bytes);

// nullopt when size n fits; otherwise why not. `device_free` is 0 when no GPU runs. Emulated
// device memory is host memory, so emulated runs add the device bytes to the host's.
std::optional<std::string> memory_problem(const Lesson& lesson, std::int64_t n, bool gpu_runs, bool emulated_runs,
                                          std::size_t host_available, std::size_t device_free);
// The same for any problem (a lesson's --shape).
std::optional<std::string> memory_problem(const Lesson& lesson, const Problem& problem, bool gpu_runs,
                                          bool emulated_runs, std::size_t host_available, std::size_t device_free);

}  // namespace gpulab
