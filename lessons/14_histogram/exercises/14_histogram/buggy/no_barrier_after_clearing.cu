// The shared bins cleared, and counted into at once: a fast thread adds to a bin another thread
// has not set to 0 yet — and then that thread's 0 wipes the count.
// expect: bins:
__global__ void histogram_kernel(const unsigned char* x, unsigned int* bins, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&local[x[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

void histogram(const unsigned char* x, unsigned int* bins, int n) {
  cudaMemset(bins, 0, 256 * sizeof(unsigned int));
  if (n == 0) return;
  histogram_kernel<<<(n + 255) / 256 < 1024 ? (n + 255) / 256 : 1024, 256>>>(x, bins, n);
}
