// Bug: a barrier inside a branch that only half of each block takes; the other half goes on to
// the next barrier, so the two halves wait at different __syncthreads() (CUDA: a barrier in
// conditional code must be reached by every thread of the block, or by none).
// expect: synccheck in kernel swap_pairs
// expect: Barrier error detected. Divergent thread(s) in block
// expect: half_barrier.cu:19
// expect: half_barrier.cu:22
// tool: synccheck
// gpu-expect: Barrier error detected. Divergent thread(s) in block
#include "../check.h"

__global__ void swap_pairs(const float* in, float* out) {
  __shared__ float s[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = in[i];
  float mine = s[t];
  if (t < blockDim.x / 2) {
    s[t] = 2.0f * mine;
    __syncthreads();  // only the first half waits here
    mine = s[t ^ 1];
  }
  __syncthreads();  // the second half waits here
  out[i] = mine;
}

int main() {
  const int n = 1024;
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
  swap_pairs<<<n / 256, 256>>>(d_in, d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("swapped\n");
  return 0;
}
