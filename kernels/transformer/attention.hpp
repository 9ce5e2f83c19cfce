#pragma once
// Attention's forward pass, O = softmax(Q Kᵀ / √d) V, for batch × heads independent problems of
// seq queries and seq keys with head_dim values each: Q, K, V and O are [batch · heads][seq][d]
// row-major (PyTorch's (batch, heads, seq, head_dim), contiguous). With a causal mask, query i sees
// keys 0 to i only (a decoder's: no token looks ahead). Q, K and V are stored in 16 bits (FP16 or
// BF16, mixed/mixed.hpp); every sum is in FP32 and O is FP32.
#include <cstddef>
#include <cstdint>
#include <span>

#include "mixed/mixed.hpp"

namespace gpulab::transformer {

struct AttentionShape {
  std::size_t batch_heads = 0;  // batch × heads: independent attentions
  std::size_t seq = 0;          // queries, and keys
  std::size_t head_dim = 0;     // d: values a query, key and output row
  bool causal = false;
  std::size_t rows() const { return batch_heads * seq; }
  std::size_t elements() const { return rows() * head_dim; }
};

// One CPU thread, a query at a time, on inputs held as floats: the scores, their maximum, the
// exponentials and their sum, then the weighted sum of V's rows.
void attention_cpu_rows(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                        std::span<float> o, const AttentionShape& shape);

}  // namespace gpulab::transformer

// The GPU launchers: device memory, queued on the device the thread chose (common/backend.hpp).
// q, k and v hold 16-bit patterns of `storage`; o is floats.
namespace gpulab::transformer {

struct AttentionInputs {
  mixed::Storage storage = mixed::Storage::fp16;
  std::span<const std::uint16_t> q, k, v;
};

// Three kernels: S = Q Kᵀ / √d (masked), softmax over S's rows in place (lesson 17's best rung),
// O = S V. S is batch · heads · seq² floats of `scores`: memory that grows with seq².
void attention_naive(const AttentionInputs& in, std::span<float> o, const AttentionShape& shape,
                     std::span<float> scores);
// The floats of scratch attention_naive needs.
std::size_t attention_naive_scores(const AttentionShape& shape);

// One kernel on the CUDA cores: a warp a query, tiles of 32 keys and values through shared
// memory, the online softmax carried from tile to tile; no seq² anywhere. head_dim 64 or 128.
void attention_fused(const AttentionInputs& in, std::span<float> o, const AttentionShape& shape);

// FlashAttention-2's shape on the tensor cores (compute capability 8.0 or newer): 256 queries a
// block of 8 warps, 32 a warp; tiles of 64 keys copied asynchronously, the next while this one is
// used; S and O by mma.sync, the online softmax in the accumulators' registers. head_dim 64 or 128.
void attention_mma(const AttentionInputs& in, std::span<float> o, const AttentionShape& shape);

}  // namespace gpulab::transformer
