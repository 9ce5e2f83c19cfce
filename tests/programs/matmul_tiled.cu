// The textbook's shared-memory tiled matrix multiply, at sizes that are no multiple of the tile.
#include <cmath>
#include <vector>

#include "check.h"

#define TILE 16

__global__ void matmul(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0;
  for (int t = 0; t < (k + TILE - 1) / TILE; ++t) {
    int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = row < m && ak < k ? A[row * k + ak] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = bk < k && col < n ? B[bk * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE; ++i) sum += As[threadIdx.y][i] * Bs[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = sum;
}

int main(int argc, char** argv) {
  const int m = argc > 1 ? std::atoi(argv[1]) : 67, n = argc > 2 ? std::atoi(argv[2]) : 45,
            k = argc > 3 ? std::atoi(argv[3]) : 33;
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (int i = 0; i < m * k; ++i) a[i] = (i % 13) * 0.125f - 0.5f;
  for (int i = 0; i < k * n; ++i) b[i] = (i % 7) * 0.25f - 0.75f;
  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
  CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  matmul<<<grid, block>>>(da, db, dc, m, n, k);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double expected = 0;
      for (int p = 0; p < k; ++p) expected += (double)a[i * k + p] * b[p * n + j];
      wrong += std::fabs(c[i * n + j] - expected) > 1e-4;
    }
  }
  std::printf("%d x %d x %d product: %d of %d elements wrong\n", m, n, k, wrong, m * n);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return wrong == 0 ? 0 : 1;
}
