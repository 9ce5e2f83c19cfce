// Exercise 01 — your first kernel, and the launch that gives every element a thread. (Solution)

__global__ void add(const float* a, const float* b, float* c, int n) {
  // SOLUTION: the blocks before this one hold blockIdx.x * blockDim.x threads.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // The last block reaches past the end of the array unless n is a multiple of the block.
  if (i < n) c[i] = a[i] + b[i];
}

void vector_add(const float* a, const float* b, float* c, int n) {
  if (n == 0) return;  // a grid of 0 blocks is an error, and there is nothing to do
  const int threads = 256;
  // SOLUTION: n / threads rounded up, so that a last, partly filled block takes the remainder.
  const int blocks = (n + threads - 1) / threads;
  add<<<blocks, threads>>>(a, b, c, n);
}
