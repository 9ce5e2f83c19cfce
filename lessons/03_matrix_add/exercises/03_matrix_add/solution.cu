// Exercise 03 — a 2-D kernel on a 2-D grid: C = A + B, rows × cols, row-major. (Solution)

__global__ void add_2d(const float* a, const float* b, float* c, int rows, int cols) {
  // SOLUTION: x numbers the columns, so consecutive threads of a warp touch consecutive addresses.
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

void matrix_add(const float* a, const float* b, float* c, int rows, int cols) {
  if (rows == 0 || cols == 0) return;
  const dim3 block(32, 8);
  // SOLUTION: enough blocks across for the columns, and down for the rows, each rounded up.
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  add_2d<<<grid, block>>>(a, b, c, rows, cols);
}
