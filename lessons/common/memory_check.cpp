#include "common/memory_check.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/results.hpp"

namespace gpulab {

std::size_t host_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    std::size_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
}

std::string format_bytes(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.1f} kB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

std::optional<std::string> memory_problem(const Lesson& lesson, std::int64_t n, bool gpu_runs, bool emulated_runs,
                                          std::size_t host_available, std::size_t device_free) {
  return memory_problem(lesson, lesson.problem(n), gpu_runs, emulated_runs, host_available, device_free);
}

std::optional<std::string> memory_problem(const Lesson& lesson, const Problem& problem, bool gpu_runs,
                                          bool emulated_runs, std::size_t host_available, std::size_t device_free) {
  const Footprint need = lesson.footprint(problem);
  const std::string what = problem_label(problem);
  const double host_need = need.host_bytes + (emulated_runs ? need.device_bytes : 0);
  if (gpu_runs && need.device_bytes > static_cast<double>(device_free)) {
    return fmt::format("{} needs {} of GPU memory, and the GPU has {} free", what, format_bytes(need.device_bytes),
                       format_bytes(static_cast<double>(device_free)));
  }
  if (host_need > static_cast<double>(host_available)) {
    return fmt::format("{} needs {} of host memory (inputs, reference and outputs{}), and {} is available", what,
                       format_bytes(host_need), emulated_runs ? ", emulated device memory" : "",
                       format_bytes(static_cast<double>(host_available)));
  }
  return std::nullopt;
}

}  // namespace gpulab
