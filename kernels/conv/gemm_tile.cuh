#pragma once
// The block tile of lesson 06's implicit_gemm_kernel (conv_gemm.cu): 64 rows of C × 256 columns
// per block of 256 threads, 8 warps of 32 × 64 with lesson 05's warp tiles (8 × 8 sums a thread),
// steps of 8 along the sum, two steps in shared memory: while the warps multiply one, the next
// one's values travel from global memory into registers. A kernel says only how a thread fetches
// its values of B — thread t owns column t of the tile — and where the sums go. The batched
// product of Winograd F(4×4, 3×3) (conv_winograd4.cu) shares the tile's shape and warp layout
// (the constants and gemm_tile_row/column) and feeds it by a pipeline of its own.
#include "matmul/warp_tile.cuh"

namespace gpulab::conv {

constexpr int kGemmThreads = 256, kBM = 64, kBN = 256, kBK = 8, kWM = 32, kWN = 64, kPad = 4;
constexpr int kTM = kWM / 4, kTN = kWN / 8;  // a thread's sums: 8 × 8

// The shared memory of a tile product, declared by its kernel (where the emulated build's
// rewrite sees it): A transposed (as[step][kk][row]) and B (bs[step][kk][column]).
struct GemmTileShared {
  float (*as)[kBK][kBM + kPad];
  float (*bs)[kBK][kBN];
};

// Where this thread's sum[r][c] lies in the block's 64 × 256 tile.
__device__ __forceinline__ int gemm_tile_row(int r) {
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  return warp / (kBN / kWN) * kWM + r / 4 * 16 + lane / 8 * 4 + r % 4;
}
__device__ __forceinline__ int gemm_tile_column(int c) {
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  return warp % (kBN / kWN) * kWN + 32 * (c / 4) + lane % 8 * 4 + c % 4;
}

// sum = this thread's 8 × 8 elements of A · B, the sum over kk < depth. a: the tile's first row
// of A (row-major, lda floats apart), `rows` of them left from there. load_b(kk0, b) fills b[i]
// with B[kk0 + i][this thread's column], zero where kk0 + i >= depth or the column is outside.
template <class LoadB>
__device__ __forceinline__ void gemm_tile(GemmTileShared shared, const float* a, int rows, long lda, int depth,
                                          LoadB load_b, float (&sum)[kTM][kTN]) {
  const int t = static_cast<int>(threadIdx.x);
  constexpr int kALoads = kBM * kBK / kGemmThreads;
  float next_a[kALoads], next_b[kBK];
  auto load_step = [&](int kk0) {
    for (int l = 0; l < kALoads; ++l) {
      const int e = t + l * kGemmThreads, row = e / kBK, kk = kk0 + e % kBK;
      next_a[l] = (row < rows && kk < depth) ? a[row * lda + kk] : 0.0f;
    }
    load_b(kk0, next_b);
  };
  auto store_step = [&](int buffer) {
    for (int l = 0; l < kALoads; ++l) {
      const int e = t + l * kGemmThreads;
      shared.as[buffer][e % kBK][e / kBK] = next_a[l];
    }
    for (int i = 0; i < kBK; ++i) shared.bs[buffer][i][t] = next_b[i];
  };

  const int warp = t / 32, lane = t % 32;
  const int warp_row = warp / (kBN / kWN) * kWM, warp_col = warp % (kBN / kWN) * kWN;
  const int ly = lane / 8, lx = lane % 8;
  load_step(0);
  store_step(0);
  __syncthreads();
  const int steps = (depth + kBK - 1) / kBK;
  for (int step = 0; step < steps; ++step) {
    const int buffer = step % 2;
    if (step + 1 < steps) load_step((step + 1) * kBK);  // in flight during the arithmetic below
#pragma unroll
    for (int i = 0; i < kBK; ++i) {
      warp_tile_products(&shared.as[buffer][i][warp_row], &shared.bs[buffer][i][warp_col], ly, lx, sum);
    }
    if (step + 1 < steps) store_step(1 - buffer);
    __syncthreads();
  }
}

}  // namespace gpulab::conv
