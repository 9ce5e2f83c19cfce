// Works only for square matrices: the row's stride and the grid's height both use cols.
// expect: rows = 3, cols = 100
// expect: The wrong elements:
__global__ void add_2d(const float* a, const float* b, float* c, int rows, int cols) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < cols && col < cols) c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}
void matrix_add(const float* a, const float* b, float* c, int rows, int cols) {
  if (rows == 0 || cols == 0) return;
  const dim3 block(16, 16);
  const dim3 grid((cols + 15) / 16, (cols + 15) / 16);
  add_2d<<<grid, block>>>(a, b, c, rows, cols);
}
