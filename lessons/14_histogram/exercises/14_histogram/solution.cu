// Exercise 14 — histogram. (Solution)

__global__ void histogram_kernel(const unsigned char* x, unsigned int* bins, int n) {
  // SOLUTION: privatised bins in shared memory, a grid-stride loop, one global atomic per bin.
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&local[x[i]], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
  }
}

void histogram(const unsigned char* x, unsigned int* bins, int n) {
  cudaMemset(bins, 0, 256 * sizeof(unsigned int));
  if (n == 0) return;
  const int blocks = (n + 255) / 256 < 1024 ? (n + 255) / 256 : 1024;
  histogram_kernel<<<blocks, 256>>>(x, bins, n);
}
