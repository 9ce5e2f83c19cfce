// Attention as it is written on paper, three kernels with the seq × seq scores in memory between
// them (attention.hpp):
//   1. S = Q Kᵀ / √d, a thread a score, −inf above the diagonal with a causal mask
//   2. softmax over each row of S, in place: lesson 17's best rung (softmax_registers)
//   3. O = S V, a thread an output
// Correct and easy to read, and it moves seq² floats three times more than it must: at seq 4096,
// batch 4 and 16 heads S is 4 GB. attention_fused.cu keeps S out of memory altogether.
//
// Run it: lesson19_attention --variant naive --backend gpu
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

#include "common/launch.cuh"
#include "transformer/attention.hpp"
#include "transformer/attention_common.cuh"
#include "transformer/softmax.hpp"

namespace gpulab::transformer {

namespace {
constexpr int kTile = 16;  // scores: 16 × 16 threads a block
}  // namespace

// [snippet:attention_naive_scores]
// A thread a score: the dot product of query i and key j, scaled by 1/√d; a causal mask sets the
// scores above the diagonal to −inf, which the softmax turns into weights of 0.
template <typename T>
__global__ void attention_scores_kernel(const T* q, const T* k, float* s, int seq, int d, float scale, bool causal) {
  const int j = static_cast<int>(blockIdx.x) * kTile + static_cast<int>(threadIdx.x);  // key
  const int i = static_cast<int>(blockIdx.y) * kTile + static_cast<int>(threadIdx.y);  // query
  if (i >= seq || j >= seq) return;
  const std::size_t head = std::size_t{blockIdx.z} * seq;
  const T* qi = q + (head + i) * d;
  const T* kj = k + (head + j) * d;
  float dot = 0.0f;
  for (int c = 0; c < d; ++c) dot += to_float(qi[c]) * to_float(kj[c]);
  s[(head + i) * seq + j] = causal && j > i ? -INFINITY : dot * scale;
}
// [/snippet]

// [snippet:attention_naive_weighted_sum]
// A thread an output: row i of the weights P (the softmax of S) times column c of V. Consecutive
// threads take consecutive columns, so V's reads are coalesced and P's are one value for the warp.
template <typename T>
__global__ void attention_weighted_sum_kernel(const float* p, const T* v, float* o, int seq, int d) {
  const int c = static_cast<int>(blockIdx.x) * 32 + static_cast<int>(threadIdx.x);  // column of O
  const int i = static_cast<int>(blockIdx.y) * 8 + static_cast<int>(threadIdx.y);   // query
  if (i >= seq || c >= d) return;
  const std::size_t head = std::size_t{blockIdx.z} * seq;
  const float* pi = p + (head + i) * seq;
  const T* vh = v + head * d;
  float sum = 0.0f;
  for (int j = 0; j < seq; ++j) sum += pi[j] * to_float(vh[static_cast<std::size_t>(j) * d + c]);
  o[(head + i) * d + c] = sum;
}
// [/snippet]

namespace {

template <typename T>
void naive_on(const AttentionInputs& in, std::span<float> o, const AttentionShape& shape, std::span<float> scores) {
  const auto* q = reinterpret_cast<const T*>(in.q.data());
  const auto* k = reinterpret_cast<const T*>(in.k.data());
  const auto* v = reinterpret_cast<const T*>(in.v.data());
  const int seq = static_cast<int>(shape.seq), d = static_cast<int>(shape.head_dim);
  const auto heads = static_cast<unsigned>(shape.batch_heads);
  const dim3 score_grid(blocks_for(shape.seq, kTile), blocks_for(shape.seq, kTile), heads), score_block(kTile, kTile);
  attention_scores_kernel<T>
      <<<score_grid, score_block>>>(q, k, scores.data(), seq, d, 1.0f / std::sqrt(static_cast<float>(d)), shape.causal);
  check_launch("attention_scores_kernel", score_grid, score_block);
  softmax_registers(scores, scores, shape.rows(), shape.seq);
  const dim3 sum_grid(blocks_for(shape.head_dim, 32), blocks_for(shape.seq, 8), heads), sum_block(32, 8);
  attention_weighted_sum_kernel<T><<<sum_grid, sum_block>>>(scores.data(), v, o.data(), seq, d);
  check_launch("attention_weighted_sum_kernel", sum_grid, sum_block);
}

}  // namespace

std::size_t attention_naive_scores(const AttentionShape& shape) { return shape.rows() * shape.seq; }

void attention_naive(const AttentionInputs& in, std::span<float> o, const AttentionShape& shape,
                     std::span<float> scores) {
  check_attention("attention_naive", in, o, shape, false);
  if (scores.size() < attention_naive_scores(shape)) {
    throw std::invalid_argument("attention_naive: the scores need batch_heads x seq x seq floats");
  }
  if (o.empty()) return;
  if (in.storage == mixed::Storage::fp16) {
    naive_on<__half>(in, o, shape, scores.first(attention_naive_scores(shape)));
  } else {
    naive_on<__nv_bfloat16>(in, o, shape, scores.first(attention_naive_scores(shape)));
  }
}

}  // namespace gpulab::transformer
