#pragma once
// The GPU side of common/target.cuh: kernels compiled by nvcc and launched with <<<>>> — the only
// place in GPU Lab that writes it.
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <utility>

#include "common/cuda_check.hpp"
#include "common/device_info.hpp"

namespace gpulab::gpu {

struct LaunchConfig {
  dim3 grid;
  dim3 block;
  std::size_t shared_bytes = 0;  // dynamic shared memory per block
  cudaStream_t stream = nullptr;
};

inline const DeviceInfo& device() { return device_info(); }

// Throws CudaError when the launch was refused (too many threads per block, a grid too large,
// too much shared memory, ...). Faults inside the kernel surface at the next synchronising call.
void check_launch(const char* kernel, const LaunchConfig& config, const char* file, int line);

// [snippet:launch]
template <typename... Params, typename... Args>
void launch(const char* kernel_name, const char* file, int line, const LaunchConfig& config, void (*kernel)(Params...),
            Args&&... args) {
  kernel<<<config.grid, config.block, config.shared_bytes, config.stream>>>(std::forward<Args>(args)...);
  check_launch(kernel_name, config, file, line);
}
// [/snippet]

// Theoretical occupancy: the fraction of a multiprocessor's thread slots that blocks of this size
// can fill at once, given the kernel's registers and shared memory (CUDA's occupancy calculator).
template <typename... Params>
double occupancy(void (*kernel)(Params...), int block, std::size_t shared_bytes = 0) {
  int blocks = 0;
  GPULAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, shared_bytes));
  return static_cast<double>(blocks) * block / device().max_threads_per_multiprocessor;
}

// Copies `count` elements of device memory into a __constant__ array, in stream order.
template <typename T, std::size_t N>
void copy_to_constant(T (&symbol)[N], const T* device_source, std::size_t count) {
  if (count > N) throw std::invalid_argument("copy_to_constant: more elements than the __constant__ array holds");
  GPULAB_CUDA_CHECK(cudaMemcpyToSymbolAsync(symbol, device_source, count * sizeof(T), 0, cudaMemcpyDeviceToDevice));
}

// Dynamic shared memory (the launch's shared_bytes): CUDA's `extern __shared__` array.
template <typename T>
__device__ T* dynamic_shared() {
  extern __shared__ __align__(16) unsigned char gpulab_dynamic_shared[];
  return reinterpret_cast<T*>(gpulab_dynamic_shared);
}

}  // namespace gpulab::gpu
