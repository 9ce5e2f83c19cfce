// Exercise 05b — matrix times vector. (Solution)

__global__ void matvec_kernel(const float* a, const float* b, float* c, int m, int k) {
  // SOLUTION
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m) return;
  float sum = 0.0f;
  for (int t = 0; t < k; ++t) sum += a[row * k + t] * b[t];
  c[row] = sum;
}

void matvec(const float* a, const float* b, float* c, int m, int k) {
  if (m > 0) matvec_kernel<<<(m + 255) / 256, 256>>>(a, b, c, m, k);
}
