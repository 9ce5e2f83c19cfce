#include "base/device_info.hpp"

#include <cuda_runtime_api.h>

#include "common/cuda_check.hpp"

namespace gpulab {

DeviceInfo query_device(int index) {
  DeviceInfo info;
  info.index = index;
  cudaRuntimeGetVersion(&info.runtime_version);
  cudaDriverGetVersion(&info.driver_version);  // 0 when no driver is installed
  int count = 0;
  if (const cudaError_t code = cudaGetDeviceCount(&count); code != cudaSuccess) {
    cudaGetLastError();  // leave no sticky error behind for the next caller
    info.reason = "no CUDA device: " + cuda_message(code);
    return info;
  }
  if (index >= count) {
    info.reason =
        "no CUDA device: device " + std::to_string(index) + " asked for, " + std::to_string(count) + " present";
    return info;
  }
  cudaDeviceProp prop{};
  if (const cudaError_t code = cudaGetDeviceProperties(&prop, index); code != cudaSuccess) {
    cudaGetLastError();
    info.reason = "no CUDA device: " + cuda_message(code);
    return info;
  }
  info.available = true;
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  info.total_memory = prop.totalGlobalMem;
  info.max_threads_per_block = prop.maxThreadsPerBlock;
  for (int d = 0; d < 3; ++d) {
    info.max_block_dim[d] = prop.maxThreadsDim[d];
    info.max_grid_dim[d] = prop.maxGridSize[d];
  }
  info.max_threads_per_multiprocessor = prop.maxThreadsPerMultiProcessor;
  info.shared_memory_per_block = prop.sharedMemPerBlock;
  info.warp_size = prop.warpSize;
  info.l2_cache_bytes = prop.l2CacheSize;
  return info;
}

DeviceRecovery recover_device() {
  cudaError_t code = cudaDeviceSynchronize();
  if (code == cudaSuccess) code = cudaGetLastError();
  if (code == cudaSuccess) return {};
  const std::string was = cuda_message(code);
  cudaDeviceReset();
  cudaGetLastError();
  const cudaError_t after = cudaFree(nullptr);  // creates a fresh context
  if (after == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess) {
    return {true, "the CUDA context was unusable after " + was + "; the device was reset and works again"};
  }
  return {false, "the CUDA context is unusable after " + was + " and a reset did not help (" + cuda_message(after) +
                     "): GPU runs are disabled until the app restarts"};
}

std::size_t device_free_memory() {
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return free;
}

const DeviceInfo& device_info() {
  static const DeviceInfo info = [] {
    int current = 0;
    if (cudaGetDevice(&current) != cudaSuccess) {
      cudaGetLastError();
      current = 0;
    }
    return query_device(current);
  }();
  return info;
}

}  // namespace gpulab
