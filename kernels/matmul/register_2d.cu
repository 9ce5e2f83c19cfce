// Lesson 05, rung 5: each thread computes an 8 × 8 block of C, the outer product of 8 values of A
// and 8 of B in registers at every k. Run it: lesson05_matmul --variant register_1d,register_2d --n 2048
#include "common/launch.cuh"
#include "matmul/matmul.hpp"
#include "matmul/matmul_shared.cuh"

namespace gpulab::matmul {

// A 128 × 128 tile of C per block of 256 threads, k in steps of 8; each thread an 8 × 8 block
// (kBM, kBN, kBK, kTM, kTN, kThreads: matmul_shared.cuh, as vectorised.cu uses them too).

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

// ---------------------------------------------------------------- launcher

void register_2d(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  register_2d_kernel<<<dim3(blocks_for(n, kBN), blocks_for(m, kBM)), dim3(kThreads)>>>(a.data(), b.data(), c.data(), m,
                                                                                       n, k);
  check_launch("register_2d_kernel", dim3(blocks_for(n, kBN), blocks_for(m, kBM)), dim3(kThreads));
}

double register_2d_occupancy() { return occupancy(register_2d_kernel, kThreads); }

}  // namespace gpulab::matmul
