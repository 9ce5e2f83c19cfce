// Exercise 13 — reduction. (Solution)

constexpr int kBlock = 256;  // a power of two: the tree halves it

__global__ void sum_kernel(const float* x, float* s, int n) {
  // SOLUTION: sequential addressing, a barrier after every level (the next level reads what this
  // one wrote), one atomicAdd per block.
  __shared__ float partial[kBlock];
  const int t = threadIdx.x;
  const int i = blockIdx.x * kBlock + t;
  partial[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) atomicAdd(s, partial[0]);
}

void sum(const float* x, float* s, int n) {
  cudaMemset(s, 0, sizeof(float));
  if (n == 0) return;
  sum_kernel<<<(n + kBlock - 1) / kBlock, kBlock>>>(x, s, n);
}
