#pragma once
// RAII device memory. Its spans point to device memory: pass them to launchers, never dereference
// them on the host.
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>

#include "common/cuda_check.hpp"
#include "common/owned_buffer.hpp"

namespace gpulab {

// [snippet:device_memory]
struct DeviceMemory {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    GPULAB_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  static void free(void* p) noexcept { cudaFree(p); }  // a destructor must not throw
};
// [/snippet]

template <typename T>
class DeviceBuffer : public OwnedBuffer<T, DeviceMemory> {
 public:
  using OwnedBuffer<T, DeviceMemory>::OwnedBuffer;

  // [snippet:copies]
  void copy_from(std::span<const T> host) {
    check_size(host.size());
    if (this->size() > 0) {
      GPULAB_CUDA_CHECK(cudaMemcpy(this->data(), host.data(), this->bytes(), cudaMemcpyHostToDevice));
    }
  }
  void copy_to(std::span<T> host) const {
    check_size(host.size());
    if (this->size() > 0) {
      GPULAB_CUDA_CHECK(cudaMemcpy(host.data(), this->data(), this->bytes(), cudaMemcpyDeviceToHost));
    }
  }
  // [/snippet]
  // Sets every byte, e.g. to poison an output before a run.
  void fill_bytes(unsigned char value) {
    if (this->size() > 0) GPULAB_CUDA_CHECK(cudaMemset(this->data(), value, this->bytes()));
  }

 private:
  void check_size(std::size_t host_size) const {
    if (host_size != this->size()) {
      throw std::invalid_argument("DeviceBuffer copy: the host span has " + std::to_string(host_size) +
                                  " elements, the device buffer " + std::to_string(this->size()));
    }
  }
};

}  // namespace gpulab
