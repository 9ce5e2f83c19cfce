// Hillis–Steele in one buffer: thread t reads buffer[t − offset] in the same step as thread
// t − offset updates it — a read-after-write race inside a step.
// expect: racecheck in kernel scan_blocks
constexpr int kBlock = 1024;

__global__ void scan_blocks(const unsigned int* x, unsigned int* y, unsigned int* block_sums, int n) {
  __shared__ unsigned int buffer[kBlock];
  const int t = threadIdx.x;
  const int i = blockIdx.x * kBlock + t;
  buffer[t] = i < n ? x[i] : 0u;
  __syncthreads();
  for (int offset = 1; offset < kBlock; offset *= 2) {
    if (t >= offset) buffer[t] += buffer[t - offset];  // thread t - offset may have added already
    __syncthreads();
  }
  if (i < n) y[i] = buffer[t];
  if (t == kBlock - 1) block_sums[blockIdx.x] = buffer[t];
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
