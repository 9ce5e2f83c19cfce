// Lesson 05, rung 4: each thread computes 8 elements of a column of C, a value of B held in a
// register for 8 multiply-adds. Run it: lesson05_matmul --variant shared_tiles,register_1d --n 2048
#include "common/launch.cuh"
#include "matmul/matmul.hpp"
#include "matmul/matmul_shared.cuh"

namespace gpulab::matmul {

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

// ---------------------------------------------------------------- launcher

void register_1d(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  register_1d_kernel<<<dim3(blocks_for(n, k1dBN), blocks_for(m, k1dBM)), dim3(k1dThreads)>>>(a.data(), b.data(),
                                                                                             c.data(), m, n, k);
  check_launch("register_1d_kernel", dim3(blocks_for(n, k1dBN), blocks_for(m, k1dBM)), dim3(k1dThreads));
}

double register_1d_occupancy() { return occupancy(register_1d_kernel, k1dThreads); }

}  // namespace gpulab::matmul
