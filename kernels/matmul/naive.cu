// Lesson 05, rung 1: one thread per element of C, threadIdx.x down the rows of C — the textbook
// kernel, and the baseline every later rung (the files beside this one, in order: matmul.hpp)
// is measured against. Run it: lesson05_matmul --variant naive --n 1024
// Like every kernel file, this one is plain CUDA and builds for the GPU and for the emulator.
#include "common/launch.cuh"
#include "matmul/matmul.hpp"
#include "matmul/matmul_shared.cuh"

namespace gpulab::matmul {

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

// ---------------------------------------------------------------- launcher

int naive_threads(int block) { return static_cast<int>(block_2d(block).x * block_2d(block).y); }

void naive(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k, int block) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  const dim3 threads = block_2d(block);
  naive_kernel<<<dim3(blocks_for(m, static_cast<int>(threads.x)), blocks_for(n, static_cast<int>(threads.y))),
                 threads>>>(a.data(), b.data(), c.data(), m, n, k);
  check_launch("naive_kernel",
               dim3(blocks_for(m, static_cast<int>(threads.x)), blocks_for(n, static_cast<int>(threads.y))), threads);
}

double naive_occupancy(int block) { return occupancy(naive_kernel, naive_threads(block)); }

}  // namespace gpulab::matmul
