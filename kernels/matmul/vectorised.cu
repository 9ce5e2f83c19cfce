// Lesson 05, rung 6: register_2d's tiles with float4 loads from global and shared memory, A
// stored transposed in shared memory. Run it: lesson05_matmul --variant register_2d,vectorised --n 4096
#include "common/launch.cuh"
#include "matmul/float4_edges.cuh"
#include "matmul/matmul.hpp"
#include "matmul/matmul_shared.cuh"

namespace gpulab::matmul {

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

// ---------------------------------------------------------------- launcher

void vectorised(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  vectorised_kernel<<<dim3(blocks_for(n, kBN), blocks_for(m, kBM)), dim3(kThreads)>>>(
      a.data(), b.data(), c.data(), m, n, k, vector_rows(a.data(), k), vector_rows(b.data(), n),
      vector_rows(c.data(), n));
  check_launch("vectorised_kernel", dim3(blocks_for(n, kBN), blocks_for(m, kBM)), dim3(kThreads));
}

double vectorised_occupancy() { return occupancy(vectorised_kernel, kThreads); }

}  // namespace gpulab::matmul
