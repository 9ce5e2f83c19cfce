// Exercise 01b — a grid-stride loop. (Solution)

__global__ void add(const float* a, const float* b, float* c, int n) {
  // SOLUTION: the grid's threads share the array, gridDim.x · blockDim.x elements apart.
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + b[i];
}

void vector_add_grid_stride(const float* a, const float* b, float* c, int n, int blocks) {
  add<<<blocks, 256>>>(a, b, c, n);
}
