// How a device query reads, for builds with and without CUDA.
#include "base/device_info.hpp"

namespace gpulab {

std::string cuda_version_string(int version) {
  if (version <= 0) return "none";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string DeviceInfo::compute_capability() const { return std::to_string(cc_major) + "." + std::to_string(cc_minor); }
std::string DeviceInfo::driver_string() const { return cuda_version_string(driver_version); }
std::string DeviceInfo::runtime_string() const { return cuda_version_string(runtime_version); }

}  // namespace gpulab
