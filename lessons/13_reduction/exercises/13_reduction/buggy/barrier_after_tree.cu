// The tree's levels without a barrier between them: a thread reads partial[t + stride] while the
// thread that owns it may still be adding into it at the level before. The barrier after the
// loop comes too late.
// expect: (WAR hazard) on element
__global__ void sum_kernel(const float* x, float* s, int n) {
  __shared__ float partial[256];
  const int t = threadIdx.x;
  const int i = blockIdx.x * 256 + t;
  partial[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int stride = 128; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
  }
  __syncthreads();
  if (t == 0) atomicAdd(s, partial[0]);
}

void sum(const float* x, float* s, int n) {
  cudaMemset(s, 0, sizeof(float));
  if (n == 0) return;
  sum_kernel<<<(n + 255) / 256, 256>>>(x, s, n);
}
