#pragma once
// What a kernel file's launchers share, on the GPU and in the emulator alike: the check after a
// launch, and the grid sizes GPU Lab's kernels use. A kernel file is plain CUDA —
//
//   add_blocks<<<grid, block>>>(a, b, c, n);
//   check_launch("add_blocks", grid, block);
//
// — and it builds for both targets (see cmake/GpuLab.cmake). Each build has its own copy of
// these helpers (they call different runtimes), hence the unnamed namespace.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>

#include "base/launch_description.hpp"
#include "common/cuda_check.hpp"

namespace gpulab {
namespace {

// [snippet:check_launch]
// After kernel<<<grid, block, shared_bytes>>>(...): throws CudaError when the launch was refused
// (too many threads per block, a grid too large, too much shared memory, ...), naming the
// kernel, its configuration, this file and line, and CUDA's message. On the GPU a fault inside
// the kernel surfaces at the next synchronising call; the emulator, which runs the kernel to its
// end before the launch returns, reports it here.
inline void check_launch(const char* kernel, dim3 grid, dim3 block, std::size_t shared_bytes = 0,
                         std::source_location where = std::source_location::current()) {
  const cudaError_t code = cudaGetLastError();  // also clears it
  if (code == cudaSuccess) return;
  std::string message = cuda_message(code);
#ifdef GPULAB_EMULATED
  // The emulator's own account: what it refused or saw, where.
  if (!gpulab::emulated::error_detail().empty()) {
    throw CudaError(static_cast<int>(code), message, gpulab::emulated::error_detail());
  }
#endif
  throw CudaError(static_cast<int>(code), message,
                  launch_failure(kernel, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared_bytes,
                                 where.file_name(), static_cast<int>(where.line()), message));
}
// [/snippet]

// One of the current device's limits (cudaDevAttrMultiProcessorCount, cudaDevAttrMaxGridDimZ, ...).
inline int device_attribute(cudaDeviceAttr attribute) {
  int device = 0, value = 0;
  GPULAB_CUDA_CHECK(cudaGetDevice(&device));
  GPULAB_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

// Blocks for a grid-stride loop: enough to fill every multiprocessor once with `block`-thread
// blocks, never more than `items` need (and at least one).
inline unsigned int grid_to_fill(std::size_t items, int block) {
  const int sms = device_attribute(cudaDevAttrMultiProcessorCount);
  const int threads_per_sm = device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor);
  const std::size_t per_sm = static_cast<std::size_t>(std::max(1, threads_per_sm / block));
  const std::size_t fill = static_cast<std::size_t>(sms) * per_sm;
  const std::size_t needed = std::max<std::size_t>(1, blocks_for(items, static_cast<unsigned int>(block)));
  return static_cast<unsigned int>(std::min(fill, needed));
}

// Whether every pointer is 16-byte aligned, as float4 accesses need.
template <typename... Pointers>
bool aligned16(const Pointers*... pointers) {
  return ((reinterpret_cast<std::uintptr_t>(pointers) % 16 == 0) && ...);
}

// Theoretical occupancy: the fraction of a multiprocessor's thread slots that blocks of this size
// can fill at once, given the kernel's registers and shared memory (CUDA's occupancy calculator;
// the emulator's knows no registers).
template <typename Kernel>
double occupancy(Kernel kernel, int block, std::size_t shared_bytes = 0) {
  int blocks = 0;
  GPULAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, shared_bytes));
  return static_cast<double>(blocks) * block / device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor);
}

}  // namespace
}  // namespace gpulab
