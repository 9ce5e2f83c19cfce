#pragma once
// Where a GPU variant runs: on the GPU (built with the CUDA toolkit) or on the emulator. A
// lesson writes its device-side run once, as a template over one of these.
#include <cstddef>
#include <vector>

#include "common/backend.hpp"
#include "common/device_info.hpp"
#include "emulator/device.hpp"
#include "emulator/memory.hpp"
#if GPULAB_HAVE_CUDA
#include "common/gpu_memory.hpp"
#endif

namespace gpulab {

#if GPULAB_HAVE_CUDA
struct GpuTarget {
  static constexpr Backend backend = Backend::gpu;
  template <typename T>
  using DeviceBuffer = gpu::DeviceBuffer<T>;
  template <typename T>
  using HostBuffer = gpu::HostBuffer<T>;  // pinned, so copies run at the bus's speed
  static const DeviceInfo& device() { return device_info(); }
};
#endif

struct EmulatedTarget {
  static constexpr Backend backend = Backend::emulated;
  template <typename T>
  using DeviceBuffer = emulated::DeviceBuffer<T>;  // watched by the checked mode
  template <typename T>
  using HostBuffer = emulated::HostBuffer<T>;
  static const DeviceInfo& device() { return emulated::device(); }
};

// Runs a recording kernel (a thread map's) on a target: `record(span)` fills `count` records in
// device memory, which come back to the host.
template <typename Target, typename Record, typename Launch>
std::vector<Record> record_on(std::size_t count, Launch record) {
  typename Target::template DeviceBuffer<Record> device(count, "records");
  record(device.span());
  std::vector<Record> records(count);
  device.copy_to(records);
  return records;
}

}  // namespace gpulab

// A GPU launcher where the GPU backend is built, nullptr in an emulated-only build (so the
// lesson names it in one line either way and the emulated-only build never links it).
#if GPULAB_HAVE_CUDA
#define GPULAB_GPU_LAUNCHER(launcher) (launcher)
#else
#define GPULAB_GPU_LAUNCHER(launcher) nullptr
#endif
