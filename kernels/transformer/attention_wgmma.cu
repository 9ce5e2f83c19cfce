// Attention on Hopper's tensor cores (H100, H200), FlashAttention-3's shape, with lesson 09's TMA
// and wgmma (mixed/tma.cuh, mixed/wgmma.cuh). Built for sm_90a (see CMakeLists.txt).
//
// A block takes 128 queries of one head and is split by role, as lesson 09's wgmma GEMM is. Warp
// group 0 only loads: one thread asks the TMA unit for the block's queries once, then for each tile
// of 128 keys and their values, into three stages, running ahead as far as the stages allow. Warp
// groups 1 and 2 only compute, 64 queries each: S = Q Kᵀ (64 × 128) by wgmma straight from shared
// memory, the online softmax on the accumulators where they are (the same code as the mma.sync
// rung: online_softmax.cuh), then O += P V by wgmma with P taken from registers — the
// accumulators of S, rounded to 16 bits, are already where wgmma wants its A.
//
// What it adds over attention_mma: the tensor cores read Q, K and V from shared memory themselves
// (no ldmatrix), 64 × 128 × 16 per instruction per warp group, asynchronously; the copies are one
// thread's TMA requests instead of every thread's; and the exponentials, which the special-function
// units compute far slower than the tensor cores multiply, are hidden behind the products: each
// group's softmax overlaps its own next products and the other group's (FlashAttention-3's
// pipelining and pingpong).
//
// Run it: lesson19_attention --shape 4x16x4096x128 --variant mma_fp16,wgmma_fp16 --backend gpu
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/launch.cuh"
#include "mixed/hopper_gpu.hpp"
#include "mixed/mma_fragments.cuh"
#include "mixed/tensor_map.cuh"
#include "mixed/tma.cuh"
#include "mixed/wgmma.cuh"
#include "transformer/attention_common.cuh"
#include "transformer/attention_hopper.hpp"
#include "transformer/online_softmax.cuh"

namespace gpulab::transformer {

namespace {

using mixed::aligned_1024;
using mixed::fence_barrier_init;
using mixed::mbarrier_arrive;
using mixed::mbarrier_expect_bytes;
using mixed::mbarrier_init;
using mixed::mbarrier_wait;
using mixed::shared_address;
using mixed::smem_descriptor;
using mixed::tma_load_3d;
using mixed::wgmma_commit;
using mixed::wgmma_fence;
using mixed::wgmma_wait;

constexpr int kQueries = 128;  // a block's: 64 for each consumer warp group
constexpr int kKeys = 128;     // a tile's
constexpr int kConsumers = 2;  // warp groups that compute
constexpr int kStages = 3;     // tiles of keys and values in flight (2 and 3 measured alike without the overlap)
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kRowBytes = 128;              // a box's row: 64 values, swizzled
constexpr int kBoxBytes = 128 * kRowBytes;  // a box of 128 rows × 64 values (queries, keys or values)
// Shared memory: the queries, then each stage's keys and values, then the barriers; each a
// head_dim / 64 boxes wide.
template <int D>
constexpr int kTileBytes = D / 64 * kBoxBytes;
template <int D>
constexpr std::size_t kSharedBytes = std::size_t{1 + 2 * kStages} * kTileBytes<D> + 1024 + 128;

// A thread's accumulator as the instruction names it (a flat array) and as the softmax reads it
// (blocks of 8 columns): the same registers.
template <int N>
__device__ __forceinline__ float (&flat(float (&blocks)[N / 8][4]))[N / 2] {
  return reinterpret_cast<float(&)[N / 2]>(blocks);
}

// [snippet:attention_wgmma_scores]
// S = Q Kᵀ for the group's 64 queries and the tile's 128 keys, D / 16 steps of 16 along d. Both
// operands are K-major — a query's row and a key's row both run along d — so each step is 32 bytes
// further along the swizzled 128-byte rows, and the next box of 64 values past the fourth.
template <typename T, int D>
__device__ __forceinline__ void tile_scores(float (&s)[kKeys / 8][4], std::uint32_t queries, std::uint32_t keys) {
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const std::uint32_t step = kk / 4 * kBoxBytes + kk % 4 * 32;
    mixed::wgmma_64x128x16_k_major<T>(flat<kKeys>(s), smem_descriptor(queries + step, 16, 1024),
                                      smem_descriptor(keys + step, 16, 1024), kk > 0);
  }
}
// [/snippet]

// [snippet:attention_wgmma_values]
// P as wgmma's A wants it: the piece for keys 16 kk to 16 kk + 15 is the accumulators of S's column
// blocks 2 kk and 2 kk + 1, rounded to 16 bits and packed in pairs. All of it before the first
// wgmma of P V, which reads registers asynchronously: a register written between two of them
// would make ptxas wait for the first.
template <typename T>
__device__ __forceinline__ void pack_weights(const float (&p)[kKeys / 8][4], std::uint32_t (&a)[kKeys / 16][4]) {
#pragma unroll
  for (int kk = 0; kk < kKeys / 16; ++kk) {
    a[kk][0] = pack<T>(p[2 * kk][0], p[2 * kk][1]);
    a[kk][1] = pack<T>(p[2 * kk][2], p[2 * kk][3]);
    a[kk][2] = pack<T>(p[2 * kk + 1][0], p[2 * kk + 1][1]);
    a[kk][3] = pack<T>(p[2 * kk + 1][2], p[2 * kk + 1][3]);
  }
}

// O += P V, 128 / 16 steps of 16 keys. V is N-major (its rows run along the output's columns): 16
// rows further down each step, its boxes of 64 columns kBoxBytes apart.
template <typename T, int D>
__device__ __forceinline__ void add_values(float (&out)[D / 8][4], const std::uint32_t (&a)[kKeys / 16][4],
                                           std::uint32_t values) {
#pragma unroll
  for (int kk = 0; kk < kKeys / 16; ++kk) {
    mixed::wgmma_64xNx16_a_in_registers<T, D>(flat<D>(out), a[kk],
                                              smem_descriptor(values + kk * 16 * kRowBytes, kBoxBytes, 1024));
  }
}
// [/snippet]

// Keys past seq, and with a causal mask keys after the query, weigh nothing: only the last tile,
// or the tiles that reach past the group's first query, have any.
__device__ __forceinline__ void mask_scores(float (&s)[kKeys / 8][4], int t, int seq, bool causal, int first, int row,
                                            int lane) {
  if ((t + 1) * kKeys <= seq && !(causal && (t + 1) * kKeys - 1 > first)) return;
#pragma unroll
  for (int j = 0; j < kKeys / 8; ++j) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int key = t * kKeys + j * 8 + lane % 4 * 2 + e % 2, query = row + e / 2 * 8;
      if (key >= seq || (causal && key > query)) s[j][e] = -INFINITY;
    }
  }
}

// [snippet:attention_wgmma]
// Warp group 0 loads: one thread asks the TMA unit for the block's queries once, then for each
// tile's keys and values, running ahead as far as the stages allow. Warp groups 1 and 2 compute,
// 64 queries each.
template <typename T, int D>
__device__ void attention_wgmma_block(const CUtensorMap& map_q, const CUtensorMap& map_k, const CUtensorMap& map_v,
                                      float* o, int seq, float scale_log2, bool causal) {
  extern __shared__ unsigned char shared_bytes[];
  unsigned char* shared = aligned_1024(shared_bytes);
  const auto keys = [&](int stage) { return shared + (1 + 2 * stage) * kTileBytes<D>; };
  const auto values = [&](int stage) { return shared + (2 + 2 * stage) * kTileBytes<D>; };
  auto* full = reinterpret_cast<std::uint64_t*>(shared + (1 + 2 * kStages) * kTileBytes<D>);
  std::uint64_t* empty = full + kStages;
  std::uint64_t* queries_full = empty + kStages;
  // Causal blocks of later queries see more keys: those start first, so the short ones fill the end.
  const int q0 = static_cast<int>(gridDim.x - 1 - blockIdx.x) * kQueries, head = static_cast<int>(blockIdx.y);
  const int keys_seen = causal ? min(seq, q0 + kQueries) : seq;
  const int tiles = (keys_seen + kKeys - 1) / kKeys;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);            // the producer's arrival (with the bytes it expects)
      mbarrier_init(&empty[s], kConsumers);  // one arrival per consumer group
    }
    mbarrier_init(queries_full, 1);
    fence_barrier_init();
  }
  __syncthreads();
  // The warp group's number, read from lane 0: uniform in the warp as the compiler must see it, or
  // it serialises the wgmma instructions of a path it thinks divergent.
  const int group = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x) / 128, 0);
  if (group == 0) {                                         // the producer: one thread issues every copy
    asm volatile("setmaxnreg.dec.sync.aligned.u32 24;\n");  // its registers to the consumers
    if (threadIdx.x != 0) return;
    mbarrier_expect_bytes(queries_full, kTileBytes<D>);
    for (int b = 0; b < D / 64; ++b) tma_load_3d(shared + b * kBoxBytes, map_q, b * 64, q0, head, queries_full);
    for (int t = 0; t < tiles; ++t) {
      const int s = t % kStages;
      if (t >= kStages) mbarrier_wait(&empty[s], (t / kStages - 1) % 2);  // its previous tile is done with
      mbarrier_expect_bytes(&full[s], 2 * kTileBytes<D>);
      for (int b = 0; b < D / 64; ++b) {
        tma_load_3d(keys(s) + b * kBoxBytes, map_k, b * 64, t * kKeys, head, &full[s]);
        tma_load_3d(values(s) + b * kBoxBytes, map_v, b * 64, t * kKeys, head, &full[s]);
      }
    }
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;\n");
  const int consumer = group - 1, thread = static_cast<int>(threadIdx.x) % 128, lane = thread % 32;
  const int first = q0 + consumer * 64;                 // the group's first query
  const int row = first + thread / 32 * 16 + lane / 4;  // the query of the thread's row g (and g + 8: row + 8)
  const std::uint32_t queries = shared_address(shared) + consumer * 64 * kRowBytes;
  float out[D / 8][4] = {};
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f}, correction[2];  // rows g and g + 8
  float scores[kKeys / 8][4];
  std::uint32_t weights[kKeys / 16][4];
  mbarrier_wait(queries_full, 0);
  // Two overlaps. Within a group, the scores of tile t + 1 are computed by the tensor cores while
  // P V of tile t is, and the softmax of tile t + 1 runs while P V is still in flight; only the
  // output's rescaling waits for P V (it changes the registers P V adds into). Between the groups,
  // "pingpong": they take turns to issue their products (named barriers 1 and 2 of 256 threads: the
  // group's own 128 and the other's arrival), so that one group's softmax runs while the other's
  // products keep the tensor cores busy.
  const auto my_turn = [&] { asm volatile("bar.sync %0, 256;\n" ::"r"(1 + consumer) : "memory"); };
  const auto your_turn = [&](bool last) {
    if (!(last && consumer == 1)) asm volatile("bar.arrive %0, 256;\n" ::"r"(2 - consumer) : "memory");
  };
  if (consumer == 1) asm volatile("bar.arrive 1, 256;\n" ::: "memory");  // group 0 starts
  mbarrier_wait(&full[0], 0);
  my_turn();
  wgmma_fence();
  tile_scores<T, D>(scores, queries, shared_address(keys(0)));
  wgmma_commit();
  your_turn(false);
  wgmma_wait<0>();
  mask_scores(scores, 0, seq, causal, first, row, lane);
  softmax_tile<kKeys>(scores, m, l, correction, scale_log2);  // (the output is still 0)
  pack_weights<T>(scores, weights);
  for (int t = 0; t + 1 < tiles; ++t) {
    const int s = t % kStages, next = (t + 1) % kStages;
    mbarrier_wait(&full[next], (t + 1) / kStages % 2);
    my_turn();
    wgmma_fence();  // the weights and the rescaled outputs are in registers wgmma reads
    tile_scores<T, D>(scores, queries, shared_address(keys(next)));
    wgmma_commit();
    add_values<T, D>(out, weights, shared_address(values(s)));
    wgmma_commit();
    your_turn(false);
    wgmma_wait<1>();  // the scores of tile t + 1 (committed first, done first)
    mask_scores(scores, t + 1, seq, causal, first, row, lane);
    softmax_tile<kKeys>(scores, m, l, correction, scale_log2);
    wgmma_wait<0>();  // P V of tile t
    if (thread == 0) mbarrier_arrive(&empty[s]);
    rescale<D>(out, correction);
    pack_weights<T>(scores, weights);
  }
  my_turn();
  wgmma_fence();
  add_values<T, D>(out, weights, shared_address(values((tiles - 1) % kStages)));
  wgmma_commit();
  your_turn(true);
  wgmma_wait<0>();
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
  }
  const std::size_t base = std::size_t(head) * seq * D;
#pragma unroll
  for (int n = 0; n < D / 8; ++n) {
    const int col = n * 8 + lane % 4 * 2;
    if (row < seq) {
      *reinterpret_cast<float2*>(o + base + std::size_t(row) * D + col) =
          make_float2(out[n][0] / l[0], out[n][1] / l[0]);
    }
    if (row + 8 < seq) {
      *reinterpret_cast<float2*>(o + base + std::size_t(row + 8) * D + col) =
          make_float2(out[n][2] / l[1], out[n][3] / l[1]);
    }
  }
}
// [/snippet]

}  // namespace

template <typename T, int D>
__global__ void __launch_bounds__(kThreads, 1)
    attention_wgmma_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                           const __grid_constant__ CUtensorMap map_v, float* o, int seq, float scale_log2,
                           bool causal) {
#if GPULAB_HOPPER_BODY
  attention_wgmma_block<T, D>(map_q, map_k, map_v, o, seq, scale_log2, causal);
#endif
}

namespace {

// Q, K or V as the TMA unit sees it: [batch · heads][seq][d], in boxes of 128 rows × 64 values.
CUtensorMap head_map(mixed::Storage s, const std::uint16_t* data, const AttentionShape& shape) {
  const cuuint64_t sizes[3] = {shape.head_dim, shape.seq, shape.batch_heads};
  const cuuint64_t strides[2] = {shape.head_dim * 2, shape.seq * shape.head_dim * 2};
  const cuuint32_t box[3] = {64, 128, 1};
  return mixed::tensor_map(s, data, 3, sizes, strides, box);
}

template <typename T, int D>
void wgmma_on(const AttentionInputs& in, std::span<float> o, const AttentionShape& shape) {
  constexpr std::size_t shared_bytes = kSharedBytes<D>;
  static const bool asked = [] {  // more than the 48 KB a kernel gets without asking
    GPULAB_CUDA_CHECK(cudaFuncSetAttribute(attention_wgmma_kernel<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(shared_bytes)));
    return true;
  }();
  (void)asked;
  const CUtensorMap map_q = head_map(in.storage, in.q.data(), shape);
  const CUtensorMap map_k = head_map(in.storage, in.k.data(), shape);
  const CUtensorMap map_v = head_map(in.storage, in.v.data(), shape);
  const dim3 grid(blocks_for(shape.seq, kQueries), static_cast<unsigned>(shape.batch_heads)), block(kThreads);
  const float scale_log2 = 1.4426950408889634f / std::sqrt(static_cast<float>(D));
  attention_wgmma_kernel<T, D><<<grid, block, shared_bytes>>>(map_q, map_k, map_v, o.data(),
                                                              static_cast<int>(shape.seq), scale_log2, shape.causal);
  check_launch("attention_wgmma_kernel", grid, block, shared_bytes);
}

}  // namespace

void attention_wgmma(const AttentionInputs& in, std::span<float> o, const AttentionShape& shape) {
  check_attention("attention_wgmma", in, o, shape, true);
  if (const std::string missing = ::gpulab::mixed::hopper_missing(); !missing.empty()) {
    throw std::invalid_argument("attention_wgmma: " + missing);
  }
  if (o.empty()) return;
  with_element_and_dim(in.storage, shape.head_dim, [&]<typename T, int D>() { wgmma_on<T, D>(in, o, shape); });
}

}  // namespace gpulab::transformer
