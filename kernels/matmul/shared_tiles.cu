// Lesson 05, rung 3: 32 × 32 tiles of A and B staged in shared memory, each value read from
// global memory once per tile and 32 times from shared memory.
// Run it: lesson05_matmul --variant coalesced,shared_tiles --n 2048
#include "common/launch.cuh"
#include "matmul/matmul.hpp"
#include "matmul/matmul_shared.cuh"

namespace gpulab::matmul {

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

// ---------------------------------------------------------------- launcher

void shared_tiles(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  shared_tiles_kernel<<<dim3(blocks_for(n, kTile), blocks_for(m, kTile)), dim3(kTile, kTile)>>>(a.data(), b.data(),
                                                                                                c.data(), m, n, k);
  check_launch("shared_tiles_kernel", dim3(blocks_for(n, kTile), blocks_for(m, kTile)), dim3(kTile, kTile));
}

double shared_tiles_occupancy() { return occupancy(shared_tiles_kernel, kTile * kTile); }

}  // namespace gpulab::matmul
