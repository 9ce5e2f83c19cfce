// A block of 128 threads, each clearing and adding one bin: bins 128 … 255 are never cleared in
// shared memory nor added to the global ones.
// expect: of 256 elements wrong
__global__ void histogram_kernel(const unsigned char* x, unsigned int* bins, int n) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&local[x[i]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

void histogram(const unsigned char* x, unsigned int* bins, int n) {
  cudaMemset(bins, 0, 256 * sizeof(unsigned int));
  if (n == 0) return;
  histogram_kernel<<<(n + 127) / 128 < 1024 ? (n + 127) / 128 : 1024, 128>>>(x, bins, n);
}
