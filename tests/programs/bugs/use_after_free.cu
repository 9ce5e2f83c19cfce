// Bug: the buffer is freed before the kernel that fills it runs.
// expect: memcheck in kernel fill
// expect: Invalid __global__ write of size 4 bytes
// expect: use_after_free.cu:12
// expect: which was freed (cudaFree) before this access
// tool: memcheck
// gpu-expect: Invalid __global__ write of size 4 bytes
#include "../check.h"

__global__ void fill(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 1.0f;
}

int main() {
  const int n = 4096;
  float* d_x;
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaFree(d_x));
  fill<<<n / 256, 256>>>(d_x, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("filled\n");
  return 0;
}
