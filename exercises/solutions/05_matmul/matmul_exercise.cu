// Exercise 05 — matrix multiply with tiles in shared memory: C = A · B, row-major, any m, n, k.
//
// A block of 16 × 16 threads computes a 16 × 16 tile of C; thread (tx, ty) computes the element
// in row blockIdx.y * 16 + ty, column blockIdx.x * 16 + tx. The block walks along k, 16 at a time:
//   1. each thread loads one element of A's tile and one of B's into shared memory (zero where
//      the tile sticks out of the matrix),
//   2. everyone waits until both tiles are complete,
//   3. each thread adds its 16 products from the tiles,
//   4. everyone waits again before the next step overwrites the tiles.
// Then the threads inside C write their element. The launch is given.
//   lesson05_matmul --variant yours --backend emulated --n 100
//   gpulab_grade --lesson 05
#include <span>

#include "common/launch.cuh"
#include "exercises/exercises.hpp"

namespace gpulab::exercises {

constexpr int kTile = kMatmulTile;

__global__ void matmul_tiles_yours(const float* a, const float* b, float* c, int m, int n, int k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = static_cast<int>(blockIdx.y) * kTile + ty;
  const int col = static_cast<int>(blockIdx.x) * kTile + tx;
  float sum = 0.0f;
  // SOLUTION
  for (int k0 = 0; k0 < k; k0 += kTile) {
    as[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0f;
    bs[ty][tx] = (k0 + ty < k && col < n) ? b[(k0 + ty) * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < kTile; ++i) sum += as[ty][i] * bs[i][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}

void matmul(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  if (c.empty()) return;
  const dim3 grid(static_cast<unsigned int>((n + kTile - 1) / kTile),
                  static_cast<unsigned int>((m + kTile - 1) / kTile));
  matmul_tiles_yours<<<grid, dim3(kTile, kTile)>>>(a.data(), b.data(), c.data(), m, n, k);
  check_launch("matmul_tiles_yours", grid, dim3(kTile, kTile));
}

}  // namespace gpulab::exercises
