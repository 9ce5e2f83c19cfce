#pragma once
// The emulator's <cuda_pipeline.h>: asynchronous copies from global to shared memory (cp.async on
// the GPU) and the waits for them. The emulator makes each copy at once, in the calling thread:
// the copy has landed when the call returns, one of the orders a GPU may give, so a commit has
// nothing to group and a wait nothing to wait for. (What this cannot show: a kernel that reads
// shared memory before waiting for the copy that fills it, which a GPU may answer with old data.)
#include <cstddef>

#include "cuda_runtime.h"
#include "emulator/observers/memory_counter.hpp"

// Copies size_and_align − zfill bytes (4, 8 or 16 in all, both addresses aligned to it) and writes
// zeros over the last zfill. A whole copy is one access of its size, as the kernel's own float,
// float2 or float4 accesses are, so the checked mode and the memory counts see one load and one
// store; a partial one goes byte by byte (a memcpy call would go past the checks).
inline void __pipeline_memcpy_async(void* dst_shared, const void* src_global, std::size_t size_and_align,
                                    std::size_t zfill = 0) {
  if (zfill == 0 && size_and_align == 16) {
    gpulab::emulated::memory_counter::next_load_is_async_copy();  // (counted as LDGSTS is)
    *static_cast<float4*>(dst_shared) = *static_cast<const float4*>(src_global);
  } else if (zfill == 0 && size_and_align == 8) {
    *static_cast<float2*>(dst_shared) = *static_cast<const float2*>(src_global);
  } else if (zfill == 0 && size_and_align == 4) {
    *static_cast<float*>(dst_shared) = *static_cast<const float*>(src_global);
  } else {
    const std::size_t copied = size_and_align - zfill;
    const auto* from = static_cast<const unsigned char*>(src_global);
    auto* to = static_cast<unsigned char*>(dst_shared);
    for (std::size_t i = 0; i < size_and_align; ++i) to[i] = i < copied ? from[i] : static_cast<unsigned char>(0);
  }
}
inline void __pipeline_commit() {}
inline void __pipeline_wait_prior(std::size_t) {}
