// The device query of an emulated-only build (no CUDA toolkit): there is never a GPU to use.
#include "base/device_info.hpp"

namespace gpulab {

std::size_t device_free_memory() { return 0; }

DeviceRecovery recover_device() { return {}; }

DeviceInfo query_device(int index) {
  DeviceInfo info;
  info.index = index;
  info.reason =
      "no CUDA device: this is an emulated-only build (no CUDA toolkit); the emulated backend runs the GPU kernels on "
      "the CPU";
  return info;
}

const DeviceInfo& device_info() {
  static const DeviceInfo info = query_device(0);
  return info;
}

}  // namespace gpulab
