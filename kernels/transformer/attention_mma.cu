// Attention on the tensor cores, FlashAttention-2's way (attention.hpp), with lesson 09's PTX
// (mixed/mma_fragments.cuh: ldmatrix, mma.sync m16n8k16, the swizzled 128-byte rows).
//
// A block of 8 warps takes 256 queries, a warp 32 of them (two blocks of 16 rows). Tiles of 64
// keys and their values are copied asynchronously into swizzled shared memory, the next tile while
// this one is used. For each tile a warp computes its 32 × 64 scores S = Q Kᵀ with mma.sync into
// FP32 accumulators, finishes the online softmax on them where they are (each lane holds 4 rows'
// values; a row's 4 lanes meet by two shuffles), and multiplies the weights P by V with mma.sync
// again — P never leaves the registers: the accumulators' layout of a 16 × 16 piece of S is
// exactly the A fragment layout mma.sync wants, so P is only rounded to 16 bits and packed.
//
// What it adds over attention_fused: the products on the tensor cores (16 × 8 × 16 multiply-adds
// an instruction instead of 1), 256 queries sharing each tile of keys instead of 8, each key and
// value fragment loaded from shared memory serving two blocks of 16 queries, and the copies
// overlapping the arithmetic.
//
// Run it: lesson19_attention --shape 4x16x4096x128 --backend gpu
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "common/launch.cuh"
#include "mixed/mma_fragments.cuh"
#include "transformer/attention.hpp"
#include "transformer/attention_common.cuh"
#include "transformer/online_softmax.cuh"

namespace gpulab::transformer {

namespace {

using mixed::ldmatrix_x4;
using mixed::ldmatrix_x4_trans;
using mixed::mma_16x8x16;
using mixed::shared_address;
using mixed::swizzled;

constexpr int kM = 2;  // a warp: 32 queries, as two blocks of 16 rows
// The block's shape: Warps warps of 32 queries, tiles of Keys keys. 8 × 64 is the fastest of
// 2, 4 and 8 warps and tiles of 32 and 64 keys on an H200 (2.40 ms at 4 × 16 × 4096 × 128, against
// 2.62 ms with 4 warps and 5.15 with 2): one block of 8 warps an SM, each tile of keys and values
// shared by 256 queries.
constexpr int kWarps = 8, kTileKeys = 64;
template <int Warps>
constexpr int kQueries = 32 * Warps;

// A tile of `rows` rows of D 16-bit values, as D / 64 blocks of 64 columns with 128-byte swizzled
// rows (mma_fragments.cuh's layout, bank-conflict free for ldmatrix).
__device__ __forceinline__ std::uint32_t tile_offset(int rows, int row, int col) {
  return static_cast<std::uint32_t>(col / 64 * (rows * 128)) + swizzled(row, col % 64);
}
// The shared memory of a block: the queries, then two stages of keys and values.
template <int D, int Warps, int Keys>
constexpr int kSharedBytes = (kQueries<Warps> + 4 * Keys) * D * 2;

}  // namespace

// Starts the asynchronous copy of rows [row0, row0 + Rows) of a seq × D matrix into a tile; rows
// past seq are zeros (their scores are masked, and 0 × a zero value adds nothing).
template <typename T, int D, int Rows>
__device__ void copy_tile(unsigned char* tile, const T* src, int seq, int row0) {
  for (int chunk = static_cast<int>(threadIdx.x); chunk < Rows * D / 8; chunk += static_cast<int>(blockDim.x)) {
    const int r = chunk / (D / 8), c = chunk % (D / 8) * 8;
    unsigned char* to = tile + tile_offset(Rows, r, c);
    if (row0 + r < seq) {
      __pipeline_memcpy_async(to, src + static_cast<std::size_t>(row0 + r) * D + c, 16);
    } else {
      *reinterpret_cast<uint4*>(to) = make_uint4(0, 0, 0, 0);
    }
  }
}

// [snippet:attention_mma_scores]
// S = Q Kᵀ for the warp's 32 queries and the tile's 64 keys: 2 × 8 accumulators of 16 × 8, D / 16
// steps of 16 along d. Kᵀ is mma.sync's B ("col": each lane's pair runs along d), and a key's row
// of K runs along d already, so ldmatrix loads it untransposed: four 8 × 8 matrices, two keys'
// blocks × two halves of the 16 values of d — each used by both of the warp's row blocks.
template <typename T, int D, int Warps, int Keys>
__device__ __forceinline__ void tile_scores(float (&s)[kM][Keys / 8][4], std::uint32_t queries, std::uint32_t keys,
                                            int warp, int lane) {
#pragma unroll
  for (int i = 0; i < kM; ++i) {
#pragma unroll
    for (int j = 0; j < Keys / 8; ++j) s[i][j][0] = s[i][j][1] = s[i][j][2] = s[i][j][3] = 0.0f;
  }
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    std::uint32_t a[kM][4];
#pragma unroll
    for (int i = 0; i < kM; ++i) {
      ldmatrix_x4(a[i],
                  queries + tile_offset(kQueries<Warps>, warp * 32 + i * 16 + lane % 16, kk * 16 + lane / 16 * 8));
    }
#pragma unroll
    for (int j = 0; j < Keys / 8; j += 2) {
      std::uint32_t b[4];
      ldmatrix_x4(b, keys + tile_offset(Keys, j * 8 + lane / 16 * 8 + lane % 8, kk * 16 + lane / 8 % 2 * 8));
#pragma unroll
      for (int i = 0; i < kM; ++i) {
        mma_16x8x16<T>(s[i][j], a[i], b[0], b[1]);
        mma_16x8x16<T>(s[i][j + 1], a[i], b[2], b[3]);
      }
    }
  }
}
// [/snippet]

// [snippet:attention_mma_values]
// O += P V. The accumulators of score blocks 2kk and 2kk + 1 (keys 16kk to 16kk + 15) hold, in
// each lane, exactly the pairs of P that mma.sync's A fragment of that 16 × 16 piece wants; V's
// rows run along the output's columns, so ldmatrix.trans hands each lane its pairs along the keys,
// and each fragment of V serves both row blocks.
template <typename T, int D, int Keys>
__device__ __forceinline__ void add_values(float (&out)[kM][D / 8][4], const float (&p)[kM][Keys / 8][4],
                                           std::uint32_t values, int lane) {
#pragma unroll
  for (int kk = 0; kk < Keys / 16; ++kk) {
    std::uint32_t a[kM][4];
#pragma unroll
    for (int i = 0; i < kM; ++i) {
      a[i][0] = pack<T>(p[i][2 * kk][0], p[i][2 * kk][1]);
      a[i][1] = pack<T>(p[i][2 * kk][2], p[i][2 * kk][3]);
      a[i][2] = pack<T>(p[i][2 * kk + 1][0], p[i][2 * kk + 1][1]);
      a[i][3] = pack<T>(p[i][2 * kk + 1][2], p[i][2 * kk + 1][3]);
    }
#pragma unroll
    for (int n = 0; n < D / 8; n += 2) {
      std::uint32_t b[4];
      ldmatrix_x4_trans(b, values + tile_offset(Keys, kk * 16 + lane % 16, n * 8 + lane / 16 * 8));
#pragma unroll
      for (int i = 0; i < kM; ++i) {
        mma_16x8x16<T>(out[i][n], a[i], b[0], b[1]);
        mma_16x8x16<T>(out[i][n + 1], a[i], b[2], b[3]);
      }
    }
  }
}
// [/snippet]

// [snippet:attention_mma]
// The block's loop over tiles of keys: the copy of tile t + 1 in flight while tile t is used.
template <typename T, int D, int Warps, int Keys>
__device__ void attention_mma_block(const T* q, const T* k, const T* v, float* o, int seq, float scale_log2,
                                    bool causal) {
  extern __shared__ __align__(128) unsigned char shared[];
  constexpr int kQ = kQueries<Warps>;
  const auto stage = [&](int tile, int which) { return shared + (kQ + Keys * (2 * (tile % 2) + which)) * D * 2; };
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  // Causal blocks of later queries see more keys: those start first, so the short ones fill the end.
  const int q0 = static_cast<int>(gridDim.x - 1 - blockIdx.x) * kQ;
  const std::size_t head = std::size_t{blockIdx.y} * seq * D;
  q += head, k += head, v += head, o += head;
  const int keys_seen = causal ? min(seq, q0 + kQ) : seq;
  const int tiles = (keys_seen + Keys - 1) / Keys;

  copy_tile<T, D, kQ>(shared, q, seq, q0);
  copy_tile<T, D, Keys>(stage(0, 0), k, seq, 0);
  copy_tile<T, D, Keys>(stage(0, 1), v, seq, 0);
  __pipeline_commit();

  float out[kM][D / 8][4] = {};
  // Of row block i, rows g and g + 8: the running maximum and the lane's part of the running sum.
  float m[kM][2], l[kM][2];
#pragma unroll
  for (int i = 0; i < kM; ++i) m[i][0] = m[i][1] = -INFINITY, l[i][0] = l[i][1] = 0.0f;
  const int row = q0 + warp * 32 + lane / 4;  // the query of row g of row block 0
  for (int t = 0; t < tiles; ++t) {
    if (t + 1 < tiles) {
      copy_tile<T, D, Keys>(stage(t + 1, 0), k, seq, (t + 1) * Keys);
      copy_tile<T, D, Keys>(stage(t + 1, 1), v, seq, (t + 1) * Keys);
    }
    __pipeline_commit();
    __pipeline_wait_prior(1);  // this thread's copies of tile t have landed...
    __syncthreads();           // ...and every thread's
    float s[kM][Keys / 8][4];
    tile_scores<T, D, Warps, Keys>(s, shared_address(shared), shared_address(stage(t, 0)), warp, lane);
    // Keys past seq, and with a causal mask keys after the query, weigh nothing: only the last
    // tile, or the tiles that reach past the block's first query, have any.
    if ((t + 1) * Keys > seq || (causal && (t + 1) * Keys - 1 > q0)) {
#pragma unroll
      for (int i = 0; i < kM; ++i) {
#pragma unroll
        for (int j = 0; j < Keys / 8; ++j) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int key = t * Keys + j * 8 + lane % 4 * 2 + e % 2, query = row + i * 16 + e / 2 * 8;
            if (key >= seq || (causal && key > query)) s[i][j][e] = -INFINITY;
          }
        }
      }
    }
#pragma unroll
    for (int i = 0; i < kM; ++i) online_softmax<D, Keys>(s[i], m[i], l[i], out[i], scale_log2);
    add_values<T, D, Keys>(out, s, shared_address(stage(t, 1)), lane);
    __syncthreads();  // every warp is done with this stage before tile t + 2 is copied into it
  }
#pragma unroll
  for (int i = 0; i < kM; ++i) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      l[i][r] += __shfl_xor_sync(0xffffffffu, l[i][r], 1);
      l[i][r] += __shfl_xor_sync(0xffffffffu, l[i][r], 2);
    }
#pragma unroll
    for (int n = 0; n < D / 8; ++n) {
      const int col = n * 8 + lane % 4 * 2, top = row + i * 16;
      if (top < seq) {
        *reinterpret_cast<float2*>(o + std::size_t(top) * D + col) =
            make_float2(out[i][n][0] / l[i][0], out[i][n][1] / l[i][0]);
      }
      if (top + 8 < seq) {
        *reinterpret_cast<float2*>(o + std::size_t(top + 8) * D + col) =
            make_float2(out[i][n][2] / l[i][1], out[i][n][3] / l[i][1]);
      }
    }
  }
}
// [/snippet]

// mma.sync m16n8k16 exists from compute capability 8.0: for older GPUs the kernel is empty (the
// launcher refuses them there before launching).
template <typename T, int D, int Warps, int Keys>
__global__ void __launch_bounds__(32 * Warps)
    attention_mma_kernel(const T* q, const T* k, const T* v, float* o, int seq, float scale_log2, bool causal) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  attention_mma_block<T, D, Warps, Keys>(q, k, v, o, seq, scale_log2, causal);
#endif
}

namespace {

template <typename T, int D, int Warps = kWarps, int Keys = kTileKeys>
void mma_on(const AttentionInputs& in, std::span<float> o, const AttentionShape& shape) {
  constexpr int shared_bytes = kSharedBytes<D, Warps, Keys>;
  static const bool asked = [] {  // more than the 48 KB a kernel gets without asking
    GPULAB_CUDA_CHECK(cudaFuncSetAttribute(attention_mma_kernel<T, D, Warps, Keys>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
    return true;
  }();
  (void)asked;
  const auto* q = reinterpret_cast<const T*>(in.q.data());
  const auto* k = reinterpret_cast<const T*>(in.k.data());
  const auto* v = reinterpret_cast<const T*>(in.v.data());
  const dim3 grid(blocks_for(shape.seq, kQueries<Warps>), static_cast<unsigned>(shape.batch_heads)), block(32 * Warps);
  const float scale_log2 = 1.4426950408889634f / std::sqrt(static_cast<float>(D));
  const std::size_t bytes = shared_bytes;
  attention_mma_kernel<T, D, Warps, Keys>
      <<<grid, block, bytes>>>(q, k, v, o.data(), static_cast<int>(shape.seq), scale_log2, shape.causal);
  check_launch("attention_mma_kernel", grid, block, bytes);
}

}  // namespace

void attention_mma(const AttentionInputs& in, std::span<float> o, const AttentionShape& shape) {
  check_attention("attention_mma", in, o, shape, true);
  if (device_attribute(cudaDevAttrComputeCapabilityMajor) < 8) {
    throw std::invalid_argument("attention_mma: mma.sync m16n8k16 needs compute capability 8.0 or newer");
  }
  if (o.empty()) return;
  with_element_and_dim(in.storage, shape.head_dim, [&]<typename T, int D>() { mma_on<T, D>(in, o, shape); });
}

}  // namespace gpulab::transformer
