// An early return for the threads outside C, before the loop's barriers: they neither load
// their part of the tiles nor arrive at __syncthreads().
// expect: synccheck
#define TILE 16
__global__ void matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k) {
  __shared__ float as[TILE][TILE], bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  if (row >= m || col >= n) return;
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
  matmul_tiled<<<dim3((n + TILE - 1) / TILE, (m + TILE - 1) / TILE), dim3(TILE, TILE)>>>(a, b, c, m, n, k);
}
