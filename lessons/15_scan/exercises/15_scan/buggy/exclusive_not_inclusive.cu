// The sum of the elements before i, not up to i: an exclusive scan where an inclusive one was
// asked for — off by one element everywhere, y[0] = 0.
// expect: y[0] is 0, expected
constexpr int kBlock = 1024;

__global__ void scan_blocks(const unsigned int* x, unsigned int* y, unsigned int* block_sums, int n) {
  // SOLUTION: Hillis–Steele with two buffers, a barrier after every step.
  __shared__ unsigned int buffer[2][kBlock];
  const int t = threadIdx.x;
  const int i = blockIdx.x * kBlock + t;
  int in = 0;
  buffer[in][t] = i < n ? x[i] : 0u;
  __syncthreads();
  for (int offset = 1; offset < kBlock; offset *= 2) {
    buffer[1 - in][t] = t >= offset ? buffer[in][t] + buffer[in][t - offset] : buffer[in][t];
    __syncthreads();
    in = 1 - in;
  }
  if (i < n) y[i] = buffer[in][t] - x[i];  // the sum before i: an exclusive scan
  if (t == kBlock - 1) block_sums[blockIdx.x] = buffer[in][t];
}

// One thread turns the block sums into their inclusive scan (a few thousand at most here).
__global__ void scan_sums(unsigned int* block_sums, int blocks) {
  for (int b = 1; b < blocks; ++b) block_sums[b] += block_sums[b - 1];
}

__global__ void add_offsets(unsigned int* y, const unsigned int* block_sums, int n) {
  const int i = blockIdx.x * kBlock + threadIdx.x;
  if (blockIdx.x > 0 && i < n) y[i] += block_sums[blockIdx.x - 1];
}

void inclusive_scan(const unsigned int* x, unsigned int* y, int n) {
  if (n == 0) return;
  const int blocks = (n + kBlock - 1) / kBlock;
  unsigned int* block_sums = nullptr;
  cudaMalloc(&block_sums, blocks * sizeof(unsigned int));
  scan_blocks<<<blocks, kBlock>>>(x, y, block_sums, n);
  scan_sums<<<1, 1>>>(block_sums, blocks);
  add_offsets<<<blocks, kBlock>>>(y, block_sums, n);
  cudaFree(block_sums);
}
