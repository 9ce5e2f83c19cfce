#pragma once
// RAII device memory with copies to and from the host. Its spans point to device memory: pass
// them to launchers, never dereference them on the host. `Memory` is the GPU's (gpu_memory.hpp)
// or the emulator's (emulator/runtime/memory.hpp); both look the same to a lesson.
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>

#include "base/owned_buffer.hpp"

namespace gpulab {

template <typename T, typename Memory>
class BasicDeviceBuffer : public OwnedBuffer<T, Memory> {
 public:
  using OwnedBuffer<T, Memory>::OwnedBuffer;

  // [snippet:copies]
  void copy_from(std::span<const T> host) {
    check_size(host.size());
    if (this->size() > 0) Memory::upload(this->data(), host.data(), this->bytes());
  }
  void copy_to(std::span<T> host) const {
    check_size(host.size());
    if (this->size() > 0) Memory::download(host.data(), this->data(), this->bytes());
  }
  // [/snippet]
  // The first host.size() elements only (a last, smaller batch into a buffer sized for a full one).
  void copy_prefix_from(std::span<const T> host) {
    if (host.size() > this->size()) check_size(host.size());
    if (!host.empty()) Memory::upload(this->data(), host.data(), host.size() * sizeof(T));
  }
  // Elements [first, first + host.size()) only (the loss in a step's workspace).
  void copy_range_to(std::span<T> host, std::size_t first) const {
    if (first > this->size() || host.size() > this->size() - first) check_size(first + host.size());
    if (!host.empty()) Memory::download(host.data(), this->data() + first, host.size() * sizeof(T));
  }
  // Sets every byte, e.g. to poison an output before a run.
  void fill_bytes(unsigned char value) {
    if (this->size() > 0) Memory::fill(this->data(), value, this->bytes());
  }

 private:
  void check_size(std::size_t host_size) const {
    if (host_size != this->size()) {
      throw std::invalid_argument("device buffer copy: the host span has " + std::to_string(host_size) +
                                  " elements, the device buffer " + std::to_string(this->size()));
    }
  }
};

}  // namespace gpulab
