// The warp-synchronous reduction of CUDA's early samples: the last warp sums through a volatile
// pointer with no __syncwarp(), relying on its 32 lanes running in lockstep. Right on many GPUs by
// luck; the emulator (whose lanes do not run in lockstep) must say so, not stay silent.
#include <cuda_runtime.h>
#include <cstdio>

__device__ void warp_reduce(volatile int* s, int t) {
  s[t] += s[t + 32];
  s[t] += s[t + 16];
  s[t] += s[t + 8];
  s[t] += s[t + 4];
  s[t] += s[t + 2];
  s[t] += s[t + 1];
}

__global__ void reduce(const int* in, int* out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  if (t < 64) s[t] += s[t + 64];
  __syncthreads();
  if (t < 32) warp_reduce(s, t);
  if (t == 0) *out = s[0];
}

int main() {
  int h[128], *in, *out, sum = 0;
  for (int i = 0; i < 128; ++i) h[i] = 1;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof(int));
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  reduce<<<1, 128>>>(in, out);
  cudaMemcpy(&sum, out, sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("sum of 128 ones: %d\n", sum);
  return 0;
}
