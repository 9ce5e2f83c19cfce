// Lesson 05, rung 2: the naive kernel with threadIdx.x along the rows of C, so that a warp's loads
// of B and stores of C coalesce. Run it: lesson05_matmul --variant naive,coalesced --n 1024
#include "common/launch.cuh"
#include "matmul/matmul.hpp"
#include "matmul/matmul_shared.cuh"

namespace gpulab::matmul {

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

// ---------------------------------------------------------------- launcher

void coalesced(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k, int block) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  const dim3 threads = block_2d(block);
  coalesced_kernel<<<dim3(blocks_for(n, static_cast<int>(threads.x)), blocks_for(m, static_cast<int>(threads.y))),
                     threads>>>(a.data(), b.data(), c.data(), m, n, k);
  check_launch("coalesced_kernel",
               dim3(blocks_for(n, static_cast<int>(threads.x)), blocks_for(m, static_cast<int>(threads.y))), threads);
}

double coalesced_occupancy(int block) { return occupancy(coalesced_kernel, naive_threads(block)); }

}  // namespace gpulab::matmul
