// Matrix multiply on the GPU, C = A · B, row-major: A is m × k, B is k × n, C is m × n.
//
// The ladder, each rung one idea over the one before:
//   naive_kernel          one thread per element of C; a warp walks down a column of C
//   coalesced_kernel      the same, but a warp walks along a row of C: B and C accesses coalesce
//   shared_tiles_kernel   32 × 32 tiles of A and B staged in shared memory, each read 32 times there
//   register_1d_kernel    each thread computes 8 elements of a column: a B value in a register is reused 8 times
//   register_2d_kernel    each thread computes an 8 × 8 block: 16 shared loads feed 64 multiply-adds
//   vectorised_kernel     float4 loads from global and shared memory; A stored transposed in shared memory
//   warp_tiled_kernel     warp-shaped tiles without bank conflicts, larger tiles, double buffering
//   pipelined_kernel      the same tiles fed by asynchronous copies, three k-steps in flight
//
// Every kernel takes any m, n and k: tiles that stick out of the matrices load zeros and store nothing.
// Run them: lesson05_matmul --variant all --n 2048
#include <cuda_pipeline.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/launch.cuh"
#include "common/launch_description.hpp"
#include "common/library_scratch.hpp"
#include "matmul/float4_edges.cuh"
#include "matmul/matmul.hpp"
#include "matmul/warp_tile.cuh"

namespace gpulab::matmul {

// ---------------------------------------------------------------- 1. naive

// [snippet:naive_kernel]
// One thread per element of C: a dot product of a row of A and a column of B, 2k loads for 2k
// FLOPs. threadIdx.x picks the row, so the 32 threads of a warp read 32 different rows of A (32
// separate memory transactions) and write down a column of C (32 more): nothing coalesces.
__global__ void naive_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < m && col < n) {
    float sum = 0.0f;
    for (int i = 0; i < k; ++i) sum += a[row * k + i] * b[i * n + col];
    c[row * n + col] = sum;
  }
}
// [/snippet]

// ---------------------------------------------------------------- 2. coalesced

// [snippet:coalesced_kernel]
// What it adds: threadIdx.x picks the column. A warp's 32 threads now read 32 neighbouring
// floats of a row of B (one 128-byte transaction), all read the same element of A (a broadcast)
// and write 32 neighbouring floats of C. Same arithmetic, a fraction of the memory transactions.
__global__ void coalesced_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < m && col < n) {
    float sum = 0.0f;
    for (int i = 0; i < k; ++i) sum += a[row * k + i] * b[i * n + col];
    c[row * n + col] = sum;
  }
}
// [/snippet]

// ---------------------------------------------------------------- 3. shared-memory tiles

constexpr int kTile = 32;

// [snippet:shared_tiles_kernel]
// What it adds: a block of 32 × 32 threads computes a 32 × 32 tile of C. It walks along k one
// 32-wide step at a time; at each step every thread loads one element of A and one of B into
// shared memory, and then each loaded value is read 32 times from there instead of from global
// memory. Global loads per FLOP drop 32-fold. Outside the matrices the tiles hold zeros, which
// add nothing to the sums, so any m, n, k work.
__global__ void shared_tiles_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    as[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0f;
    bs[ty][tx] = (k0 + ty < k && col < n) ? b[(k0 + ty) * n + col] : 0.0f;
    __syncthreads();  // the tiles are complete before anyone reads them
    for (int i = 0; i < kTile; ++i) sum += as[ty][i] * bs[i][tx];
    __syncthreads();  // everyone is done reading before the next step overwrites them
  }
  if (row < m && col < n) c[row * n + col] = sum;
}
// [/snippet]

// ---------------------------------------------------------------- 4. 1-D register blocking

// A 64 × 64 tile of C per block of 512 threads, k in steps of 8; each thread computes 8 rows of
// one column.
constexpr int k1dBM = 64, k1dBN = 64, k1dBK = 8, k1dTM = 8;
constexpr int k1dThreads = k1dBM * k1dBN / k1dTM;

// [snippet:register_1d_kernel]
// What it adds: each thread computes a column of 8 elements of C, so each B value it takes from
// shared memory is used 8 times from a register. Shared-memory loads per multiply-add drop from
// 2 to 1.125, and shared memory, not global memory, was the limit of the tiled kernel.
__global__ void __launch_bounds__(k1dThreads)
    register_1d_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  __shared__ float as[k1dBM][k1dBK];
  __shared__ float bs[k1dBK][k1dBN];
  const int row0 = blockIdx.y * k1dBM;
  const int col0 = blockIdx.x * k1dBN;
  const int t = threadIdx.x;
  const int col = t % k1dBN;                // this thread's column in the tile
  const int first_row = t / k1dBN * k1dTM;  // and its 8 rows
  // 512 threads load the 64 × 8 tile of A and the 8 × 64 tile of B, one element each.
  const int a_row = t / k1dBK, a_col = t % k1dBK;
  const int b_row = t / k1dBN, b_col = t % k1dBN;

  float sum[k1dTM] = {};
  for (int k0 = 0; k0 < k; k0 += k1dBK) {
    const int ar = row0 + a_row, ac = k0 + a_col, br = k0 + b_row, bc = col0 + b_col;
    as[a_row][a_col] = (ar < m && ac < k) ? a[ar * k + ac] : 0.0f;
    bs[b_row][b_col] = (br < k && bc < n) ? b[br * n + bc] : 0.0f;
    __syncthreads();
    for (int i = 0; i < k1dBK; ++i) {
      const float bv = bs[i][col];  // one load, eight uses
#pragma unroll
      for (int r = 0; r < k1dTM; ++r) sum[r] += as[first_row + r][i] * bv;
    }
    __syncthreads();
  }
  for (int r = 0; r < k1dTM; ++r) {
    const int gr = row0 + first_row + r, gc = col0 + col;
    if (gr < m && gc < n) c[gr * n + gc] = sum[r];
  }
}
// [/snippet]

// ---------------------------------------------------------------- 5. 2-D register blocking

// A 128 × 128 tile of C per block of 256 threads, k in steps of 8; each thread an 8 × 8 block.
constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;
constexpr int kThreads = kBM * kBN / (kTM * kTN);

// [snippet:register_2d_kernel]
// What it adds: each thread computes an 8 × 8 block of C. Per step of k it loads 8 values of A
// and 8 of B into registers and does their 64 products (an outer product): 16 shared loads for
// 64 multiply-adds, against 9 for 8 in the 1-D kernel. Each block also reuses every global load
// 128 times. The cost: 64 accumulators per thread, so fewer threads fit on a multiprocessor.
__global__ void __launch_bounds__(kThreads)
    register_2d_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  __shared__ float as[kBM][kBK];
  __shared__ float bs[kBK][kBN];
  const int row0 = blockIdx.y * kBM;
  const int col0 = blockIdx.x * kBN;
  const int t = threadIdx.x;
  const int first_row = t / (kBN / kTN) * kTM;
  const int first_col = t % (kBN / kTN) * kTN;

  float sum[kTM][kTN] = {};
  float ra[kTM], rb[kTN];
  for (int k0 = 0; k0 < k; k0 += kBK) {
    // 256 threads, 1024 elements in each tile: four loads each, neighbouring threads on
    // neighbouring addresses.
    for (int e = t; e < kBM * kBK; e += kThreads) {
      const int r = e / kBK, cc = e % kBK;
      as[r][cc] = (row0 + r < m && k0 + cc < k) ? a[(row0 + r) * k + k0 + cc] : 0.0f;
    }
    for (int e = t; e < kBK * kBN; e += kThreads) {
      const int r = e / kBN, cc = e % kBN;
      bs[r][cc] = (k0 + r < k && col0 + cc < n) ? b[(k0 + r) * n + col0 + cc] : 0.0f;
    }
    __syncthreads();
    for (int i = 0; i < kBK; ++i) {
#pragma unroll
      for (int r = 0; r < kTM; ++r) ra[r] = as[first_row + r][i];
#pragma unroll
      for (int cc = 0; cc < kTN; ++cc) rb[cc] = bs[i][first_col + cc];
#pragma unroll
      for (int r = 0; r < kTM; ++r) {
#pragma unroll
        for (int cc = 0; cc < kTN; ++cc) sum[r][cc] += ra[r] * rb[cc];
      }
    }
    __syncthreads();
  }
  for (int r = 0; r < kTM; ++r) {
    for (int cc = 0; cc < kTN; ++cc) {
      const int gr = row0 + first_row + r, gc = col0 + first_col + cc;
      if (gr < m && gc < n) c[gr * n + gc] = sum[r][cc];
    }
  }
}
// [/snippet]

// ---------------------------------------------------------------- 6. vectorised

// [snippet:vectorised_kernel]
// What it adds over register_2d_kernel (same tiles, same 8 × 8 per thread): every global load is
// a float4 (16 bytes, a quarter of the instructions), and A's tile is stored transposed, as[k][m],
// so a thread's 8 values of A for one k are consecutive and come in two float4 shared loads, as
// its 8 values of B do. Four 16-byte shared loads now feed 64 multiply-adds.
// `vec_a` / `vec_b` / `vec_c` say whether rows of A, B and C start on 16-byte boundaries (k or n
// a multiple of 4); where they do not, the same kernel loads one float at a time.
__global__ void __launch_bounds__(kThreads) vectorised_kernel(const float* a, const float* b, float* c, int m, int n,
                                                              int k, bool vec_a, bool vec_b, bool vec_c) {
  alignas(16) __shared__ float as[kBK][kBM];
  alignas(16) __shared__ float bs[kBK][kBN];
  const int row0 = blockIdx.y * kBM;
  const int col0 = blockIdx.x * kBN;
  const int t = threadIdx.x;
  const int first_row = t / (kBN / kTN) * kTM;
  const int first_col = t % (kBN / kTN) * kTN;
  // One float4 of A (row t / 2, k-columns 0-3 or 4-7) and one of B (row t / 32, 4 columns) per thread.
  const int a_row = t / 2, a_col = t % 2 * 4;
  const int b_row = t / 32, b_col = t % 32 * 4;

  float sum[kTM][kTN] = {};
  for (int k0 = 0; k0 < k; k0 += kBK) {
    const int ar = row0 + a_row, br = k0 + b_row;
    const float4 va = load4(a + ar * k + k0 + a_col, valid4(ar, m, k0 + a_col, k), vec_a);
    as[a_col + 0][a_row] = va.x;
    as[a_col + 1][a_row] = va.y;
    as[a_col + 2][a_row] = va.z;
    as[a_col + 3][a_row] = va.w;
    *reinterpret_cast<float4*>(&bs[b_row][b_col]) =
        load4(b + br * n + col0 + b_col, valid4(br, k, col0 + b_col, n), vec_b);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kBK; ++i) {
      const float4 a0 = *reinterpret_cast<const float4*>(&as[i][first_row]);
      const float4 a1 = *reinterpret_cast<const float4*>(&as[i][first_row + 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&bs[i][first_col]);
      const float4 b1 = *reinterpret_cast<const float4*>(&bs[i][first_col + 4]);
      const float ra[kTM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float rb[kTN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int r = 0; r < kTM; ++r) {
#pragma unroll
        for (int cc = 0; cc < kTN; ++cc) sum[r][cc] += ra[r] * rb[cc];
      }
    }
    __syncthreads();
  }
  for (int r = 0; r < kTM; ++r) {
    const int gr = row0 + first_row + r;
    for (int half = 0; half < 2; ++half) {
      const int gc = col0 + first_col + 4 * half;
      const float* s = sum[r] + 4 * half;
      store4(c + gr * n + gc, make_float4(s[0], s[1], s[2], s[3]), valid4(gr, m, gc, n), vec_c);
    }
  }
}
// [/snippet]

// ---------------------------------------------------------------- 7. warp tiling + double buffering

// A block of 256 threads = 8 warps; each warp computes a WM × WN tile of C, its 32 lanes arranged
// 4 × 8. A lane owns groups of 4 × 4 elements: rows ly·4 + 16·g and columns lx·4 + 32·h of its
// warp's tile (ly = lane / 8, lx = lane % 8), so it computes (WM / 4) × (WN / 8) elements.
// A's shared rows are padded by 4 floats. Two shapes are built (see warp_tiled below):
//   128 × 256 per block, 64 × 64 per warp, 16 × 8 per thread: the large matrices' shape
//   128 × 128 per block, 32 × 64 per warp,  8 × 8 per thread: more blocks for smaller ones
constexpr int kWarpThreads = 256, kWarpBK = 8, kPadA = 4;

// [snippet:warp_tiled_kernel]
// What it adds over vectorised_kernel:
// - Warp tiling. In vectorised_kernel a warp's 32 lanes read B at 32-byte strides (lane i at 8i),
//   so each 16-byte shared load needs two passes through the banks. Here a lane's columns come in
//   groups of 4 that are 32 apart, so a warp's B loads are 128 contiguous bytes (one pass) and its
//   A loads are 4 distinct float4s, each broadcast to 8 lanes.
// - Larger tiles per thread (16 × 8 for large matrices): 6 shared loads feed 128 multiply-adds,
//   where vectorised_kernel needs 4 for 64. The price is registers (over 200 per thread), so
//   fewer warps fit on a multiprocessor; they have enough independent work to hide the latency.
// - Conflict-free transposed stores: A's shared rows are 132 floats long, so the 32 lanes storing
//   their values of A land on 32 different banks.
// - Double buffering: two copies of each shared tile. While the block computes on one, the next
//   tile's global loads are already in flight (into registers), then stored to the other copy:
//   one __syncthreads per step instead of two, and the loads' latency hides behind arithmetic.
// - Split-K (kSplitK), where C has too few tiles to fill the GPU: a grid of two layers
//   (blockIdx.z) halves k, each layer summing its half of the products of every tile. The first
//   layer stores its sums in C, the second in `second` (scratch memory), and add_layers_kernel
//   then adds them: C = first + second, in that order, so the result is the same on every run.
//   Adding both into a zeroed C with atomicAdd needs no scratch, but the atomics were what the
//   layers waited for: 70 µs against 63 at n = 1024 on an H200, even with four floats an atomic.
template <int BM, int BN, int WM, int WN, bool kSplitK>
__global__ void __launch_bounds__(kWarpThreads)
    warp_tiled_kernel(const float* a, const float* b, float* c, int m, int n, int k, int k_slice, bool vec_a,
                      bool vec_b, bool vec_c, float* second) {
  static_assert((BM / WM) * (BN / WN) * 32 == kWarpThreads, "the warps must cover the block's tile");
  constexpr int BK = kWarpBK;
  constexpr int TM = WM / 4, TN = WN / 8;              // this thread's elements of C
  constexpr int LA = BM * BK / 4 / kWarpThreads;       // float4 loads of A per thread per step
  constexpr int LB = BN * BK / 4 / kWarpThreads;       // and of B
  alignas(16) __shared__ float as[2][BK][BM + kPadA];  // A transposed: as[k][row]
  alignas(16) __shared__ float bs[2][BK][BN];
  const int row0 = blockIdx.y * BM;
  const int col0 = blockIdx.x * BN;
  const int t = threadIdx.x;
  const int warp = t / 32, lane = t % 32;
  const int warp_row = warp / (BN / WN) * WM;  // this warp's tile within the block's tile
  const int warp_col = warp % (BN / WN) * WN;
  const int ly = lane / 8, lx = lane % 8;
  const int k_begin = kSplitK ? static_cast<int>(blockIdx.z) * k_slice : 0;
  const int k_end = kSplitK ? min(k, k_begin + k_slice) : k;

  // Global -> registers for the step at k0; registers -> shared copy `buffer`. Element e of a tile
  // (e = t, t + 256, ...) is a float4: row e / (width / 4), columns from e % (width / 4) · 4.
  float4 next_a[LA], next_b[LB];
  auto load_step = [&](int k0) {
    for (int l = 0; l < LA; ++l) {
      const int e = t + l * kWarpThreads, row = row0 + e / (BK / 4), col = k0 + e % (BK / 4) * 4;
      next_a[l] = load4(a + row * k + col, valid4(row, m, col, k_end), vec_a);
    }
    for (int l = 0; l < LB; ++l) {
      const int e = t + l * kWarpThreads, row = k0 + e / (BN / 4), col = col0 + e % (BN / 4) * 4;
      next_b[l] = load4(b + row * n + col, valid4(row, k_end, col, n), vec_b);
    }
  };
  auto store_step = [&](int buffer) {
    for (int l = 0; l < LA; ++l) {
      const int e = t + l * kWarpThreads, row = e / (BK / 4), col = e % (BK / 4) * 4;
      as[buffer][col + 0][row] = next_a[l].x;
      as[buffer][col + 1][row] = next_a[l].y;
      as[buffer][col + 2][row] = next_a[l].z;
      as[buffer][col + 3][row] = next_a[l].w;
    }
    for (int l = 0; l < LB; ++l) {
      const int e = t + l * kWarpThreads, row = e / (BN / 4), col = e % (BN / 4) * 4;
      *reinterpret_cast<float4*>(&bs[buffer][row][col]) = next_b[l];
    }
  };

  float sum[TM][TN] = {};
  load_step(k_begin);
  store_step(0);
  __syncthreads();
  const int steps = (k_end - k_begin + BK - 1) / BK;
  for (int s = 0; s < steps; ++s) {
    const int buffer = s % 2;
    if (s + 1 < steps) load_step(k_begin + (s + 1) * BK);  // in flight during the arithmetic below
#pragma unroll
    for (int i = 0; i < BK; ++i) {
      warp_tile_products(&as[buffer][i][warp_row], &bs[buffer][i][warp_col], ly, lx, sum);  // warp_tile.cuh
    }
    // The other copy was last read in step s - 1, before the barrier that ended it: safe to fill.
    if (s + 1 < steps) store_step(1 - buffer);
    __syncthreads();
  }
  float* out = kSplitK && blockIdx.z == 1 ? second : c;  // second: m × n floats, rows as C's
  for (int r = 0; r < TM; ++r) {
    const int row = row0 + warp_row + r / 4 * 16 + ly * 4 + r % 4;
    for (int h = 0; h < TN / 4; ++h) {
      const int col = col0 + warp_col + 32 * h + lx * 4;
      const float* v = sum[r] + 4 * h;
      store4(out + row * n + col, make_float4(v[0], v[1], v[2], v[3]), valid4(row, m, col, n), vec_c);
    }
  }
}

// C += second, the split-K layers' sums added; four floats a thread where both are on 16 bytes
// and C holds a multiple of 4 floats.
__global__ void add_layers_kernel(float* c, const float* second, long count, bool vec) {
  const long i = long{blockIdx.x} * blockDim.x + threadIdx.x;
  if (vec) {
    if (i >= count / 4) return;
    float4 x = reinterpret_cast<float4*>(c)[i];
    const float4 y = reinterpret_cast<const float4*>(second)[i];
    reinterpret_cast<float4*>(c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  } else if (i < count) {
    c[i] += second[i];
  }
}
// [/snippet]

// ---------------------------------------------------------------- 8. pipelined

// 128 × 256 per block, 64 × 64 per warp, 16 × 8 per thread (warp_tiled's large tiles), k-steps
// of 16, four steps in shared memory: 4 · 16 · (132 + 256) floats, 97 KB a block.
constexpr int kPipeBM = 128, kPipeBN = 256, kPipeWM = 64, kPipeWN = 64, kPipeBK = 16, kPipeStages = 4;
constexpr std::size_t kPipeSharedBytes = sizeof(float) * kPipeStages * kPipeBK * (kPipeBM + kPadA + kPipeBN);

// A k-step's copies of B for a block at the matrices' edges (pipelined_kernel below): each four
// floats that exist and start on 16 bytes by one asynchronous copy, the rest loaded now, with
// zeros where the matrix ends. Not inlined: the copies of the blocks inside the matrices stay a
// short straight run of instructions.
template <int BN, int BK>
__device__ __noinline__ void copy_b_step_at_edges(float (*bs)[BN], const float* b, int k, int n, int col0, int k0,
                                                  bool vec_b) {
  for (int e = static_cast<int>(threadIdx.x); e < BK * BN / 4; e += kWarpThreads) {
    const int kk = e / (BN / 4), col = e % (BN / 4) * 4;
    const float* from = b + static_cast<long>(k0 + kk) * n + col0 + col;
    const int valid = valid4(k0 + kk, k, col0 + col, n);
    if (vec_b && valid >= 4) {
      __pipeline_memcpy_async(&bs[kk][col], from, 16);
    } else {
      *reinterpret_cast<float4*>(&bs[kk][col]) = load4(from, valid, false);
    }
  }
}

// [snippet:pipelined_kernel]
// What it adds over warp_tiled_kernel: a deeper pipeline. warp_tiled has one k-step on its way
// while it multiplies; here four steps of 16 share the shared memory, so three are on their way.
// B's tiles travel by asynchronous copies (cp.async, __pipeline_memcpy_async) from global memory
// straight into shared memory, no register holding them on the way. A's tiles must be transposed
// (a thread's values of A at one k are a column of the tile), which a copy cannot do, so they
// still come through registers as in warp_tiled: loaded three steps ahead, stored transposed
// after the arithmetic of the current step. (Transposing all of A first, in a kernel of its own,
// and copying both tiles took 2.83 ms at n = 4096 on an H100 against 2.80: the transpose alone
// took 54 µs.)
// kEdges: built with the tests at the matrices' edges, for shapes that tiles do not cover exactly.
// Without (a shape of whole tiles, rows on 16 bytes) the k-loop holds no call it never makes,
// which cost 5 % (2.97 against 2.81 ms at n = 4096 on an H100): registers kept free for a call.
template <bool kEdges>
__global__ void __launch_bounds__(kWarpThreads, 1) pipelined_kernel(const float* a, const float* b, float* c, int m,
                                                                    int n, int k, bool vec_a, bool vec_b, bool vec_c) {
  constexpr int BM = kPipeBM, BN = kPipeBN, BK = kPipeBK, WM = kPipeWM, WN = kPipeWN, ST = kPipeStages;
  constexpr int TM = WM / 4, TN = WN / 8;         // this thread's elements of C
  constexpr int LA = BM * BK / 4 / kWarpThreads;  // float4 loads of A per thread per step
  constexpr int LB = BN * BK / 4 / kWarpThreads;  // float4 copies of B per thread per step
  extern __shared__ float4 pipeline_shared[];
  auto as = reinterpret_cast<float(*)[BK][BM + kPadA]>(pipeline_shared);  // as[stage][k][row]
  auto bs = reinterpret_cast<float(*)[BK][BN]>(reinterpret_cast<float*>(pipeline_shared) +
                                               ST * BK * (BM + kPadA));  // bs[stage][k][col]
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int warp_row = warp / (BN / WN) * WM, warp_col = warp % (BN / WN) * WN;
  const int ly = lane / 8, lx = lane % 8;

  // A: global -> registers (load_a), registers -> shared, transposed (store_a), as in warp_tiled.
  float4 next_a[LA];
  auto load_a = [&](int k0) {
    for (int l = 0; l < LA; ++l) {
      const int e = t + l * kWarpThreads, row = row0 + e / (BK / 4), col = k0 + e % (BK / 4) * 4;
      const float* from = a + static_cast<long>(row) * k + col;
      if constexpr (kEdges) {
        next_a[l] = load4(from, valid4(row, m, col, k), vec_a);
      } else {
        next_a[l] = *reinterpret_cast<const float4*>(from);
      }
    }
  };
  auto store_a = [&](int stage) {
    for (int l = 0; l < LA; ++l) {
      const int e = t + l * kWarpThreads, row = e / (BK / 4), col = e % (BK / 4) * 4;
      as[stage][col + 0][row] = next_a[l].x;
      as[stage][col + 1][row] = next_a[l].y;
      as[stage][col + 2][row] = next_a[l].z;
      as[stage][col + 3][row] = next_a[l].w;
    }
  };
  // B: rows kk of the tile, four columns a copy. Where the block's tile lies wholly inside B (every
  // block of a shape of whole tiles; all but the edges' otherwise), every copy is made without a test.
  const bool inside = vec_b && col0 + BN <= n;
  auto copy_b = [&](int stage, int k0) {
    if constexpr (kEdges) {
      if (!inside || k0 + BK > k) {
        copy_b_step_at_edges<BN, BK>(bs[stage], b, k, n, col0, k0, vec_b);
        __pipeline_commit();
        return;
      }
    }
    for (int l = 0; l < LB; ++l) {
      const int e = t + l * kWarpThreads, kk = e / (BN / 4), col = e % (BN / 4) * 4;
      __pipeline_memcpy_async(&bs[stage][kk][col], b + static_cast<long>(k0 + kk) * n + col0 + col, 16);
    }
    __pipeline_commit();  // one group per step, even an empty one, so the count below stays right
  };

  float sum[TM][TN] = {};
  const int steps = (k + BK - 1) / BK;
  for (int s = 0; s < ST - 1; ++s) {  // the first steps: A stored at once, B on its way
    if (s < steps) {
      load_a(s * BK);
      store_a(s);
      copy_b(s, s * BK);
    } else {
      __pipeline_commit();
    }
  }
  for (int s = 0; s < steps; ++s) {
    __pipeline_wait_prior(ST - 2);  // this thread's copies of step s have landed
    __syncthreads();                // everyone's have, and stored A; and step s − 1's stage is free
    const int next = s + ST - 1;
    if (next < steps) {
      load_a(next * BK);  // in flight during the arithmetic below
      copy_b(next % ST, next * BK);
    } else {
      __pipeline_commit();
    }
    const int stage = s % ST;
#pragma unroll
    for (int i = 0; i < BK; ++i) {
      warp_tile_products(&as[stage][i][warp_row], &bs[stage][i][warp_col], ly, lx, sum);  // warp_tile.cuh
    }
    if (next < steps) store_a(next % ST);  // its stage was freed by the barrier above
  }
  for (int r = 0; r < TM; ++r) {
    const int row = row0 + warp_row + r / 4 * 16 + ly * 4 + r % 4;
    for (int h = 0; h < TN / 4; ++h) {
      const int col = col0 + warp_col + 32 * h + lx * 4;
      const float* v = sum[r] + 4 * h;
      float* to = c + static_cast<long>(row) * n + col;
      if constexpr (kEdges) {
        store4(to, make_float4(v[0], v[1], v[2], v[3]), valid4(row, m, col, n), vec_c);
      } else {
        *reinterpret_cast<float4*>(to) = make_float4(v[0], v[1], v[2], v[3]);
      }
    }
  }
}
// [/snippet]

// ---------------------------------------------------------------- launchers

namespace {

void check_shapes(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  if (m < 0 || n < 0 || k < 0) throw std::invalid_argument("matmul: m, n and k must not be negative");
  const auto sm = static_cast<std::size_t>(m), sn = static_cast<std::size_t>(n), sk = static_cast<std::size_t>(k);
  if (a.size() != sm * sk || b.size() != sk * sn || c.size() != sm * sn) {
    throw std::invalid_argument("matmul: A must hold m·k, B k·n and C m·n floats (m = " + std::to_string(m) +
                                ", n = " + std::to_string(n) + ", k = " + std::to_string(k) + ")");
  }
  // The kernels index with int, as a learner would write them.
  constexpr std::size_t limit = std::size_t{1} << 31;
  if (a.size() >= limit || b.size() >= limit || c.size() >= limit)
    throw std::invalid_argument("matmul: each matrix must have fewer than 2^31 elements");
}

// Blocks of 32 threads across (x) and `threads / 32` down (y), at least one row.
dim3 block_2d(int threads) { return dim3(32, static_cast<unsigned int>(std::max(1, threads / 32))); }

}  // namespace

int naive_threads(int block) { return static_cast<int>(block_2d(block).x * block_2d(block).y); }

namespace {

// C = 0 for k = 0 (A · B of an m × 0 and a 0 × n matrix): all-zero bytes are 0.0f.
bool done_without_products(std::span<float> c, int k) {
  if (c.empty()) return true;
  if (k > 0) return false;
  GPULAB_CUDA_CHECK(cudaMemsetAsync(c.data(), 0, c.size_bytes()));
  return true;
}

bool vector_rows(const float* p, int row_length) { return row_length % 4 == 0 && aligned16(p); }

}  // namespace

void naive(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k, int block) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  const dim3 threads = block_2d(block);
  naive_kernel<<<dim3(blocks_for(m, static_cast<int>(threads.x)), blocks_for(n, static_cast<int>(threads.y))),
                 threads>>>(a.data(), b.data(), c.data(), m, n, k);
  check_launch("naive_kernel",
               dim3(blocks_for(m, static_cast<int>(threads.x)), blocks_for(n, static_cast<int>(threads.y))), threads);
}

void coalesced(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k, int block) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  const dim3 threads = block_2d(block);
  coalesced_kernel<<<dim3(blocks_for(n, static_cast<int>(threads.x)), blocks_for(m, static_cast<int>(threads.y))),
                     threads>>>(a.data(), b.data(), c.data(), m, n, k);
  check_launch("coalesced_kernel",
               dim3(blocks_for(n, static_cast<int>(threads.x)), blocks_for(m, static_cast<int>(threads.y))), threads);
}

void shared_tiles(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  shared_tiles_kernel<<<dim3(blocks_for(n, kTile), blocks_for(m, kTile)), dim3(kTile, kTile)>>>(a.data(), b.data(),
                                                                                                c.data(), m, n, k);
  check_launch("shared_tiles_kernel", dim3(blocks_for(n, kTile), blocks_for(m, kTile)), dim3(kTile, kTile));
}

void register_1d(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  register_1d_kernel<<<dim3(blocks_for(n, k1dBN), blocks_for(m, k1dBM)), dim3(k1dThreads)>>>(a.data(), b.data(),
                                                                                             c.data(), m, n, k);
  check_launch("register_1d_kernel", dim3(blocks_for(n, k1dBN), blocks_for(m, k1dBM)), dim3(k1dThreads));
}

void register_2d(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  register_2d_kernel<<<dim3(blocks_for(n, kBN), blocks_for(m, kBM)), dim3(kThreads)>>>(a.data(), b.data(), c.data(), m,
                                                                                       n, k);
  check_launch("register_2d_kernel", dim3(blocks_for(n, kBN), blocks_for(m, kBM)), dim3(kThreads));
}

void vectorised(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  vectorised_kernel<<<dim3(blocks_for(n, kBN), blocks_for(m, kBM)), dim3(kThreads)>>>(
      a.data(), b.data(), c.data(), m, n, k, vector_rows(a.data(), k), vector_rows(b.data(), n),
      vector_rows(c.data(), n));
  check_launch("vectorised_kernel", dim3(blocks_for(n, kBN), blocks_for(m, kBM)), dim3(kThreads));
}

// The large tile when it still gives every multiprocessor a block, else the small one: a 1024²
// product has only 32 tiles of 128 × 256 for 132 multiprocessors, but 64 of 128 × 128.
bool large_warp_tiles(int m, int n) {
  const long blocks = static_cast<long>(blocks_for(m, 128)) * blocks_for(n, 256);
  return blocks >= device_attribute(cudaDevAttrMultiProcessorCount);
}

// Two layers of split-K where even the small tiles leave more than a third of the multiprocessors
// idle (64 blocks on 132 at n = 1024: each multiprocessor holds one block of this kernel) and k is
// long enough for both halves to have work.
bool split_k_pays(int m, int n, int k) {
  const long blocks = static_cast<long>(blocks_for(m, 128)) * blocks_for(n, 128);
  return 3 * blocks < 2 * device_attribute(cudaDevAttrMultiProcessorCount) && k >= 256;
}

template <int BM, int BN, int WM, int WN, bool kSplitK>
void launch_warp_tiled(const float* a, const float* b, float* c, int m, int n, int k, bool va, bool vb, bool vc,
                       const char* name) {
  constexpr int splits = kSplitK ? 2 : 1;
  // The halves of k start on a multiple of the k-step, so float4 loads stay aligned.
  const int k_slice = (k + splits * kWarpBK - 1) / (splits * kWarpBK) * kWarpBK;
  const long count = static_cast<long>(m) * n;
  // The second layer's sums: scratch kept between calls (library_scratch.hpp), so a timed call
  // allocates nothing.
  float* second =
      kSplitK ? static_cast<float*>(library_scratch(static_cast<std::size_t>(count) * sizeof(float))) : nullptr;
  const dim3 grid(blocks_for(n, BN), blocks_for(m, BM), splits);
  warp_tiled_kernel<BM, BN, WM, WN, kSplitK>
      <<<grid, dim3(kWarpThreads)>>>(a, b, c, m, n, k, k_slice, va, vb, vc, second);
  check_launch(name, grid, dim3(kWarpThreads));
  if (kSplitK) {
    const bool vec = count % 4 == 0 && aligned16(c, second);
    const dim3 adds(blocks_for(static_cast<std::size_t>(vec ? count / 4 : count), 256));
    add_layers_kernel<<<adds, dim3(256)>>>(c, second, count, vec);
    check_launch("add_layers_kernel", adds, dim3(256));
  }
}

void warp_tiled(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  const bool va = vector_rows(a.data(), k), vb = vector_rows(b.data(), n), vc = vector_rows(c.data(), n);
  if (large_warp_tiles(m, n)) {
    launch_warp_tiled<128, 256, 64, 64, false>(a.data(), b.data(), c.data(), m, n, k, va, vb, vc,
                                               "warp_tiled_kernel<128, 256, 64, 64>");
  } else if (split_k_pays(m, n, k)) {
    launch_warp_tiled<128, 128, 32, 64, true>(a.data(), b.data(), c.data(), m, n, k, va, vb, vc,
                                              "warp_tiled_kernel<128, 128, 32, 64, split-K>");
  } else {
    launch_warp_tiled<128, 128, 32, 64, false>(a.data(), b.data(), c.data(), m, n, k, va, vb, vc,
                                               "warp_tiled_kernel<128, 128, 32, 64>");
  }
}

// 97 KB of dynamic shared memory a block: past the 48 KB a kernel gets without asking.
void allow_pipeline_shared() {
  for (auto kernel : {pipelined_kernel<true>, pipelined_kernel<false>}) {
    GPULAB_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kPipeSharedBytes)));
  }
}

void pipelined(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  allow_pipeline_shared();
  const dim3 grid(blocks_for(n, kPipeBN), blocks_for(m, kPipeBM));
  const bool va = vector_rows(a.data(), k), vb = vector_rows(b.data(), n), vc = vector_rows(c.data(), n);
  if (va && vb && m % kPipeBM == 0 && n % kPipeBN == 0 && k % kPipeBK == 0) {  // whole tiles: no edges
    pipelined_kernel<false>
        <<<grid, dim3(kWarpThreads), kPipeSharedBytes>>>(a.data(), b.data(), c.data(), m, n, k, va, vb, vc);
    check_launch("pipelined_kernel<whole tiles>", grid, dim3(kWarpThreads), kPipeSharedBytes);
  } else {
    pipelined_kernel<true>
        <<<grid, dim3(kWarpThreads), kPipeSharedBytes>>>(a.data(), b.data(), c.data(), m, n, k, va, vb, vc);
    check_launch("pipelined_kernel<edges>", grid, dim3(kWarpThreads), kPipeSharedBytes);
  }
}

double naive_occupancy(int block) { return occupancy(naive_kernel, naive_threads(block)); }
double coalesced_occupancy(int block) { return occupancy(coalesced_kernel, naive_threads(block)); }
double shared_tiles_occupancy() { return occupancy(shared_tiles_kernel, kTile * kTile); }
double register_1d_occupancy() { return occupancy(register_1d_kernel, k1dThreads); }
double register_2d_occupancy() { return occupancy(register_2d_kernel, kThreads); }
double vectorised_occupancy() { return occupancy(vectorised_kernel, kThreads); }
double pipelined_occupancy() {
  allow_pipeline_shared();
  return occupancy(pipelined_kernel<true>, kWarpThreads, kPipeSharedBytes);
}
double warp_tiled_occupancy(int m, int n) {
  return large_warp_tiles(m, n) ? occupancy(warp_tiled_kernel<128, 256, 64, 64, false>, kWarpThreads)
                                : occupancy(warp_tiled_kernel<128, 128, 32, 64, false>, kWarpThreads);
}

}  // namespace gpulab::matmul
