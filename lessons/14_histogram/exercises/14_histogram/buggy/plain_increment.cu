// local[x[i]]++ instead of atomicAdd: two threads of a block that read a bin's count at once both
// write back count + 1, and one byte is lost.
// expect: racecheck in kernel histogram_kernel
__global__ void histogram_kernel(const unsigned char* x, unsigned int* bins, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) local[x[i]]++;
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

void histogram(const unsigned char* x, unsigned int* bins, int n) {
  cudaMemset(bins, 0, 256 * sizeof(unsigned int));
  if (n == 0) return;
  histogram_kernel<<<(n + 255) / 256 < 1024 ? (n + 255) / 256 : 1024, 256>>>(x, bins, n);
}
