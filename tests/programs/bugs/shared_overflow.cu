// Bug: the kernel's shared array holds 128 values, and it is launched with 256 threads a block.
// expect: memcheck in kernel reverse_block
// expect: Invalid __shared__ write of size 4 bytes
// expect: shared_overflow.cu:16
// expect: element 128 of 'buf' (128 × float, declared at
// expect: 1 element past its end
// tool: memcheck
// gpu-expect: Invalid __shared__ write of size 4 bytes
#include "../check.h"

#define BLOCK 128

__global__ void reverse_block(const float* in, float* out) {
  __shared__ float buf[BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = buf[blockDim.x - 1 - threadIdx.x];
}

int main() {
  const int n = 1024, threads = 256;
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
  reverse_block<<<n / threads, threads>>>(d_in, d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("reversed\n");
  return 0;
}
