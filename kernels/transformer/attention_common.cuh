#pragma once
// What the attention kernels share: reading a 16-bit value as a float, the launchers' checks,
// and the choice of a kernel's element type and head_dim.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <stdexcept>
#include <string>

#include "transformer/attention.hpp"

namespace gpulab::transformer {

__device__ inline float to_float(__half x) { return __half2float(x); }
__device__ inline float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

// The arrays' sizes against the shape, and head_dim where a kernel fixes it.
inline void check_attention(const char* name, const AttentionInputs& in, std::span<float> o,
                            const AttentionShape& shape, bool dims_64_or_128) {
  const std::size_t n = shape.elements();
  if (in.q.size() != n || in.k.size() != n || in.v.size() != n || o.size() != n) {
    throw std::invalid_argument(std::string(name) + ": q, k, v and o must hold batch_heads x seq x head_dim = " +
                                std::to_string(n) + " elements");
  }
  if (dims_64_or_128 && n > 0 && shape.head_dim != 64 && shape.head_dim != 128) {
    throw std::invalid_argument(std::string(name) + ": head_dim must be 64 or 128 (got " +
                                std::to_string(shape.head_dim) + ")");
  }
  if (shape.seq > 65535u * 64u || shape.batch_heads > 65535u) {
    throw std::invalid_argument(std::string(name) + ": at most 65535 x 64 queries and 65535 batch x heads");
  }
}

// f.template operator()<T, D>() with T the storage's element type and D the head_dim, 64 or 128
// (the kernels that fix head_dim are compiled for those two).
template <typename F>
void with_element_and_dim(mixed::Storage storage, std::size_t head_dim, F f) {
  const bool fp16 = storage == mixed::Storage::fp16;
  if (head_dim == 64) {
    fp16 ? f.template operator()<__half, 64>() : f.template operator()<__nv_bfloat16, 64>();
  } else {
    fp16 ? f.template operator()<__half, 128>() : f.template operator()<__nv_bfloat16, 128>();
  }
}

}  // namespace gpulab::transformer
