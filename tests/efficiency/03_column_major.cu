// Right, and slow: threadIdx.x numbers the rows, so the 32 lanes of a warp touch 32 elements a
// row apart — 32 sectors a request, 4 bytes used of each 32. The efficiency case scores it 0.
__global__ void add_2d(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

void matrix_add(const float* a, const float* b, float* c, int rows, int cols) {
  if (rows == 0 || cols == 0) return;
  const dim3 block(32, 8);
  const dim3 grid((rows + block.x - 1) / block.x, (cols + block.y - 1) / block.y);
  add_2d<<<grid, block>>>(a, b, c, rows, cols);
}
