// A failed assert() in a kernel: the kernel's thread stops, the message names its block and thread,
// and the launch fails with cudaErrorAssert — which the host reads, and goes on.
#include <cassert>
#include <cstdio>

#include "check.h"

__global__ void check_positive(const int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] > 0);
}

int main() {
  const int n = 64;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i == 37 ? -1 : 1;
  int* d;
  CHECK(cudaMalloc(&d, sizeof h));
  CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  check_positive<<<2, 32>>>(d, n);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("after the launch: %s\n", cudaGetErrorName(e));
  return 0;
}
