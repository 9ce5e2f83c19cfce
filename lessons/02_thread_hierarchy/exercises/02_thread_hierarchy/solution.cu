// Exercise 02 — find your element in a 2-D grid of 2-D blocks, and cover an array larger than
// the grid. (Solution)

__global__ void affine(const float* x, float* y, int n) {
  // SOLUTION
  const int block = blockIdx.y * gridDim.x + blockIdx.x;
  const int threads_per_block = blockDim.x * blockDim.y;
  const int thread = threadIdx.y * blockDim.x + threadIdx.x;
  const int grid_threads = gridDim.x * gridDim.y * threads_per_block;
  for (int i = block * threads_per_block + thread; i < n; i += grid_threads) y[i] = 2.0f * x[i] + 1.0f;
}

void affine_2d(const float* x, float* y, int n, int grid_x, int grid_y) {
  // SOLUTION: the grid as asked; the loop, not the grid, reaches every element.
  affine<<<dim3(grid_x, grid_y), dim3(32, 8)>>>(x, y, n);
}
