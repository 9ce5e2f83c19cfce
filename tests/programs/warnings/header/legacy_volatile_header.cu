// legacy_volatile.cu's reduction with its warp-synchronous part in a header (warp_reduce.cuh).
#include <cuda_runtime.h>
#include <cstdio>

#include "warp_reduce.cuh"

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
