// Exercise 05c — one thread per element of C. (Solution)

__global__ void matmul_naive(const float* a, const float* b, float* c, int m, int n, int k) {
  // SOLUTION: x along C's columns, so a warp reads B's row coalesced.
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int t = 0; t < k; ++t) sum += a[row * k + t] * b[t * n + col];
  c[row * n + col] = sum;
}

void matmul(const float* a, const float* b, float* c, int m, int n, int k) {
  if (m == 0 || n == 0) return;
  matmul_naive<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(a, b, c, m, n, k);
}
