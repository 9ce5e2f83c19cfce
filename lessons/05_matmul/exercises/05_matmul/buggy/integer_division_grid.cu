// The textbook's host bug: the grid from integer division, ceil(n / TILE) — n / TILE is
// already rounded down, so a 1 × 1 C gets a grid of 0 blocks and C's edge tiles are never launched.
// expect: cudaErrorInvalidValue
// expect: a grid with 0 blocks (a size rounded down to zero
#include <cmath>
#define TILE 16
__global__ void matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k) {
  __shared__ float as[TILE][TILE], bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < k; k0 += TILE) {
    as[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0f;
    bs[ty][tx] = (k0 + ty < k && col < n) ? b[(k0 + ty) * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE; ++i) sum += as[ty][i] * bs[i][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}
void matmul(const float* a, const float* b, float* c, int m, int n, int k) {
  if (m == 0 || n == 0) return;
  matmul_tiled<<<dim3(ceil(n / TILE), ceil(m / TILE)), dim3(TILE, TILE)>>>(a, b, c, m, n, k);
}
