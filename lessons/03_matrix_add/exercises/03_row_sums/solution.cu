// Exercise 03c — a matrix's row sums. (Solution)

__global__ void row_sums_kernel(const float* a, float* s, int rows, int cols) {
  // SOLUTION: each thread walks along its row.
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float sum = 0.0f;
  for (int c = 0; c < cols; ++c) sum += a[r * cols + c];
  s[r] = sum;
}

void row_sums(const float* a, float* s, int rows, int cols) {
  if (rows == 0) return;
  row_sums_kernel<<<(rows + 255) / 256, 256>>>(a, s, rows, cols);
}
