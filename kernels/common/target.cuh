#pragma once
// What a kernel file (.cu) includes. Every kernel file is built twice from the same source: by
// nvcc for the GPU (GPULAB_TARGET = gpu) and as plain C++ against the emulator (GPULAB_TARGET =
// emulated). Its code lives in namespace gpulab::GPULAB_TARGET::<topic>, so both builds coexist
// in one program, and it launches kernels only through GPULAB_LAUNCH.
//
// Both targets provide, in namespace gpulab::GPULAB_TARGET: LaunchConfig {grid, block,
// shared_bytes, stream}, device() (the device's limits), launch(), and dynamic_shared<T>().
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "common/launch_description.hpp"

#if defined(GPULAB_TARGET_EMULATED)
#include "emulator/emulator.hpp"
#else
#include "common/gpu_target.cuh"
#endif

// Launches `kernel` with `config` and checks that it was accepted; a refused launch throws
// CudaError naming the kernel, its configuration, this file and line, and CUDA's message.
#define GPULAB_LAUNCH(kernel, config, ...) \
  ::gpulab::GPULAB_TARGET::launch(#kernel, __FILE__, __LINE__, (config), kernel __VA_OPT__(, ) __VA_ARGS__)

namespace gpulab::GPULAB_TARGET {

// Blocks for a grid-stride loop: enough to fill every multiprocessor once with `block`-thread
// blocks, never more than `items` need (and at least one).
inline unsigned int grid_to_fill(std::size_t items, int block) {
  const DeviceInfo& d = device();
  const std::size_t per_sm = static_cast<std::size_t>(std::max(1, d.max_threads_per_multiprocessor / block));
  const std::size_t fill = static_cast<std::size_t>(d.multiprocessors) * per_sm;
  const std::size_t needed = std::max<std::size_t>(1, blocks_for(items, static_cast<unsigned int>(block)));
  return static_cast<unsigned int>(std::min(fill, needed));
}

// Whether every pointer is 16-byte aligned, as float4 accesses need.
template <typename... Pointers>
bool aligned16(const Pointers*... pointers) {
  return ((reinterpret_cast<std::uintptr_t>(pointers) % 16 == 0) && ...);
}

}  // namespace gpulab::GPULAB_TARGET
