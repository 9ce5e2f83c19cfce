#pragma once
// Buffers on the device backend the calling thread has chosen (UseDevice, backend.hpp) when they
// are made: GPU memory and pinned host memory on the GPU, the emulator's watched memory and plain
// host memory on the emulator. Code that holds buffers — a lesson's run, a test, a training loop —
// is written once for both backends, like the launchers it calls; what a buffer does later (free,
// copy, fill) goes to the memory it was made in, whichever backend is chosen by then.
#include <cstddef>

#include "base/device_buffer.hpp"
#include "base/device_info.hpp"
#include "base/owned_buffer.hpp"

namespace gpulab {

struct ActiveDeviceMemory {
  static void* allocate(std::size_t bytes, const char* name, std::size_t element_bytes);
  static void free(void* p) noexcept;
  static void upload(void* device, const void* host, std::size_t bytes);
  static void download(void* host, const void* device, std::size_t bytes);
  static void fill(void* device, unsigned char value, std::size_t bytes);
};

// Host memory to stage a device's copies in: pinned on the GPU (its copy engines read it directly,
// so transfers run at the bus's speed), plain on the emulator (which needs no pinning).
struct ActiveHostMemory {
  static void* allocate(std::size_t bytes, const char* name, std::size_t element_bytes);
  static void free(void* p) noexcept;
};

template <typename T>
using DeviceBuffer = BasicDeviceBuffer<T, ActiveDeviceMemory>;
template <typename T>
using HostBuffer = OwnedBuffer<T, ActiveHostMemory>;

// The limits of the device backend chosen now: the GPU's, or the emulated device's.
const DeviceInfo& active_device_info();

}  // namespace gpulab
