// Attention in one kernel on the CUDA cores (attention.hpp): FlashAttention's idea without the
// tensor cores. A warp takes a query; the block's 8 warps share tiles of 32 keys and their values,
// staged through shared memory; each warp carries its query's online softmax (lesson 17) from
// tile to tile — a running maximum m, a running sum l and the output so far, all rescaled when m
// grows — so the seq × seq scores never reach memory: O(seq) memory instead of O(seq²).
//
// Run it: lesson19_attention --variant naive,fused --backend gpu
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

#include "common/launch.cuh"
#include "transformer/attention.hpp"
#include "transformer/attention_common.cuh"
#include "transformer/row_reductions.cuh"

namespace gpulab::transformer {

namespace {
constexpr int kKeys = 32;    // keys a tile: one a lane when the scores are computed
constexpr int kQueries = 8;  // queries a block, a warp each
}  // namespace

// [snippet:attention_fused]
// Per tile, lane l computes the score of key t0 + l (its whole dot product with the query); the
// warp's maximum gives the new running maximum; the old sum and output are rescaled by
// e^(m_old − m_new) (0 the first time: m_old = −inf); then every lane adds the 32 weighted
// values to its D/32 columns of the output, each weight broadcast by a shuffle. The keys' rows
// are padded to D + 1 floats so that 32 lanes reading 32 rows at one column hit 32 banks.
template <typename T, int D>
__global__ void __launch_bounds__(32 * kQueries)
    attention_fused_kernel(const T* q, const T* k, const T* v, float* o, int seq, float scale, bool causal) {
  __shared__ float keys[kKeys][D + 1];
  __shared__ float values[kKeys][D];
  __shared__ float queries[kQueries][D];
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int first = static_cast<int>(blockIdx.x) * kQueries, i = first + warp;  // this warp's query
  const std::size_t head = std::size_t{blockIdx.y} * seq * D;
  for (int c = lane; c < D; c += 32) queries[warp][c] = i < seq ? to_float(q[head + std::size_t(i) * D + c]) : 0.0f;
  float out[D / 32] = {};
  float m = -INFINITY, l = 0.0f;
  const int keys_seen = causal ? min(seq, first + kQueries) : seq;  // the block's queries see no further
  for (int t0 = 0; t0 < keys_seen; t0 += kKeys) {
    __syncthreads();  // every warp is done with the previous tile (and the queries are written)
    for (int e = static_cast<int>(threadIdx.x); e < kKeys * D; e += 32 * kQueries) {
      const int r = e / D, c = e % D;
      const bool inside = t0 + r < seq;
      keys[r][c] = inside ? to_float(k[head + std::size_t(t0 + r) * D + c]) : 0.0f;
      values[r][c] = inside ? to_float(v[head + std::size_t(t0 + r) * D + c]) : 0.0f;
    }
    __syncthreads();
    const int j = t0 + lane;
    float s = 0.0f;
    for (int c = 0; c < D; ++c) s += queries[warp][c] * keys[lane][c];
    s = j < seq && !(causal && j > i) ? s * scale : -INFINITY;
    const float m_new = fmaxf(m, warp_max(s));  // finite: key 0 is in every query's first tile
    const float p = expf(s - m_new), correction = expf(m - m_new);
    l = l * correction + warp_sum(p);
#pragma unroll
    for (int x = 0; x < D / 32; ++x) out[x] *= correction;
    for (int r = 0; r < kKeys; ++r) {
      const float weight = __shfl_sync(0xffffffffu, p, r);
#pragma unroll
      for (int x = 0; x < D / 32; ++x) out[x] += weight * values[r][lane + 32 * x];
    }
    m = m_new;
  }
  if (i < seq) {
#pragma unroll
    for (int x = 0; x < D / 32; ++x) o[head + std::size_t(i) * D + lane + 32 * x] = out[x] / l;
  }
}
// [/snippet]

namespace {

template <typename T, int D>
void fused_on(const AttentionInputs& in, std::span<float> o, const AttentionShape& shape) {
  const auto* q = reinterpret_cast<const T*>(in.q.data());
  const auto* k = reinterpret_cast<const T*>(in.k.data());
  const auto* v = reinterpret_cast<const T*>(in.v.data());
  const dim3 grid(blocks_for(shape.seq, kQueries), static_cast<unsigned>(shape.batch_heads)), block(32 * kQueries);
  attention_fused_kernel<T, D><<<grid, block>>>(q, k, v, o.data(), static_cast<int>(shape.seq),
                                                1.0f / std::sqrt(static_cast<float>(D)), shape.causal);
  check_launch("attention_fused_kernel", grid, block);
}

}  // namespace

void attention_fused(const AttentionInputs& in, std::span<float> o, const AttentionShape& shape) {
  check_attention("attention_fused", in, o, shape, true);
  if (o.empty()) return;
  with_element_and_dim(in.storage, shape.head_dim, [&]<typename T, int D>() { fused_on<T, D>(in, o, shape); });
}

}  // namespace gpulab::transformer
