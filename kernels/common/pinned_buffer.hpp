#pragma once
// RAII page-locked host memory: the copy engines read it directly, so transfers run at the bus's
// speed instead of going through a pageable staging copy.
#include <cstddef>

#include "common/cuda_check.hpp"
#include "common/owned_buffer.hpp"

namespace gpulab {

struct PinnedMemory {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    GPULAB_CUDA_CHECK(cudaMallocHost(&p, bytes));
    return p;
  }
  static void free(void* p) noexcept { cudaFreeHost(p); }
};

template <typename T>
using PinnedBuffer = OwnedBuffer<T, PinnedMemory>;

}  // namespace gpulab
