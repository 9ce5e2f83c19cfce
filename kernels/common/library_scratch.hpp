#pragma once
// Scratch memory for launchers and library calls that need it (CUB's "temporary storage", a
// look-back's flags): one buffer per thread, device and caller, grown when a call needs more, so a
// timed call allocates nothing (the first, untimed warm-up call does). Never freed: it lives as
// long as the program. Like launch.cuh, each build has its own copy (they call different runtimes),
// hence the unnamed namespace.
#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <utility>

#include "common/cuda_check.hpp"

namespace gpulab {
namespace {

// `slot` tells apart a file's several buffers.
inline void* library_scratch(std::size_t bytes, int slot = 0) {
  struct Buffer {
    void* data = nullptr;
    std::size_t bytes = 0;
  };
  thread_local std::map<std::pair<int, int>, Buffer> buffers;
  int device = 0;
  GPULAB_CUDA_CHECK(cudaGetDevice(&device));
  Buffer& b = buffers[{device, slot}];
  if (b.bytes < bytes) {
    if (b.data != nullptr) GPULAB_CUDA_CHECK(cudaFree(b.data));
    GPULAB_CUDA_CHECK(cudaMalloc(&b.data, bytes));
    b.bytes = bytes;
  }
  return b.data;
}

}  // namespace
}  // namespace gpulab
