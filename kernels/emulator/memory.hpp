#pragma once
// Emulated device memory: host memory with a guard zone before and after every buffer (checked
// mode). After each launch the guards are inspected, and a kernel that wrote past the end (or
// before the start) of a buffer is reported with the buffer's name and the offset, instead of
// silently corrupting memory as it might on a GPU.
#include <cstddef>
#include <cstring>
#include <string>

#include "common/device_buffer.hpp"
#include "common/owned_buffer.hpp"

namespace gpulab::emulated {

inline constexpr std::size_t kGuardBytes = 16384;

struct GuardedMemory {
  static void* allocate(std::size_t bytes, const char* name, std::size_t element_bytes);
  static void free(void* p) noexcept;
  static void upload(void* device, const void* host, std::size_t bytes) { std::memcpy(device, host, bytes); }
  static void download(void* host, const void* device, std::size_t bytes) { std::memcpy(host, device, bytes); }
  static void fill(void* dst, unsigned char value, std::size_t bytes) { std::memset(dst, value, bytes); }
};

// Plain host memory, for staging the inputs of emulated runs (the emulator needs no pinning).
struct HostMemory {
  static void* allocate(std::size_t bytes, const char* name, std::size_t element_bytes);
  static void free(void* p) noexcept;
};

template <typename T>
using DeviceBuffer = BasicDeviceBuffer<T, GuardedMemory>;
template <typename T>
using HostBuffer = OwnedBuffer<T, HostMemory>;

// The live buffer that holds [p, p + bytes), or why there is none ("" and the buffer's size when
// there is): what cudaMemcpy and cudaFree check a device pointer against.
struct BufferLookup {
  bool found = false;      // p lies inside a live buffer
  std::size_t offset = 0;  // of p from the buffer's start
  std::size_t size = 0;    // the buffer's bytes
  std::string name;
};
BufferLookup find_buffer(const void* p);
// Whether p is the start of a live buffer (what cudaFree takes).
bool is_buffer_start(const void* p);
std::size_t live_device_bytes();

// Inspects every live buffer's guards; returns a description of the first corrupted one (and
// repairs the guards), or an empty string.
std::string check_guard_zones();

}  // namespace gpulab::emulated
