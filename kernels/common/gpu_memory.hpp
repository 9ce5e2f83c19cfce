#pragma once
// GPU memory through the CUDA runtime: device buffers (cudaMalloc) and pinned host buffers
// (cudaMallocHost), the memory of the `gpu` target.
#include <cstddef>

#include "base/device_buffer.hpp"
#include "base/owned_buffer.hpp"
#include "common/cuda_check.hpp"

namespace gpulab::gpu {

// [snippet:device_memory]
struct DeviceMemory {
  static void* allocate(std::size_t bytes, const char* /*name*/, std::size_t /*element_bytes*/) {
    void* p = nullptr;
    GPULAB_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  static void free(void* p) noexcept { cudaFree(p); }  // a destructor must not throw
  static void upload(void* device, const void* host, std::size_t bytes) {
    GPULAB_CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
  }
  static void download(void* host, const void* device, std::size_t bytes) {
    GPULAB_CUDA_CHECK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
  }
  static void fill(void* device, unsigned char value, std::size_t bytes) {
    GPULAB_CUDA_CHECK(cudaMemset(device, value, bytes));
  }
};
// [/snippet]

// Page-locked host memory: the copy engines read it directly, so transfers run at the bus's
// speed instead of going through a pageable staging copy.
struct PinnedMemory {
  static void* allocate(std::size_t bytes, const char* /*name*/, std::size_t /*element_bytes*/) {
    void* p = nullptr;
    GPULAB_CUDA_CHECK(cudaMallocHost(&p, bytes));
    return p;
  }
  static void free(void* p) noexcept { cudaFreeHost(p); }
};

template <typename T>
using DeviceBuffer = BasicDeviceBuffer<T, DeviceMemory>;
template <typename T>
using HostBuffer = OwnedBuffer<T, PinnedMemory>;

}  // namespace gpulab::gpu
