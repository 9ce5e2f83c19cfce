// Each block adds its sum with a plain s[0] += instead of atomicAdd: two blocks that read s[0]
// before either writes it back lose one of the sums.
// expect: (RAW hazard between blocks)
__global__ void sum_kernel(const float* x, float* s, int n) {
  __shared__ float partial[256];
  const int t = threadIdx.x;
  const int i = blockIdx.x * 256 + t;
  partial[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int stride = 128; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) s[0] += partial[0];
}

void sum(const float* x, float* s, int n) {
  cudaMemset(s, 0, sizeof(float));
  if (n == 0) return;
  sum_kernel<<<(n + 255) / 256, 256>>>(x, s, n);
}
