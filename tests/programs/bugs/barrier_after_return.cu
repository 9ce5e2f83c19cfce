// Bug: threads past the end return before the block's barrier, which the others then wait at.
// CUDA's rule (a barrier in conditional code must be reached by all of the block or none) is
// broken; current GPUs happen to let the barrier open without the exited threads, and
// compute-sanitizer's synccheck (sm_90) says nothing — the emulator reports it.
// expect: synccheck in kernel shift_left
// expect: Barrier error detected. Divergent thread(s) in block
// expect: exited without reaching the __syncthreads() at
// expect: barrier_after_return.cu:18
// tool: synccheck
// gpu-expect-clean: sm_90 and compute-sanitizer 2025.3 tolerate threads that exited before a barrier
#include "../check.h"

__global__ void shift_left(const float* in, float* out, int n) {
  __shared__ float s[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (i >= n) return;
  s[t] = in[i];
  __syncthreads();
  out[i] = t + 1 < blockDim.x && i + 1 < n ? s[t + 1] : 0.0f;
}

int main() {
  const int n = 1000;
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
  shift_left<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("shifted\n");
  return 0;
}
