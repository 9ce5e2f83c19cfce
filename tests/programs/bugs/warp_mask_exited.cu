// Bug: threads past the end return early, then the others shuffle with a full mask that still
// names the lanes that left.
// expect: synccheck in kernel neighbour_sum
// expect: names lanes 0xfffffc00 that exited without calling it
// tool: synccheck
// gpu-expect-clean: sm_90 and compute-sanitizer 2025.3 tolerate exited lanes in a shuffle mask
#include "../check.h"

__global__ void neighbour_sum(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  float next = __shfl_down_sync(0xffffffff, v, 1);
  out[i] = v + next;
}

int main() {
  const int n = 42;
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
  neighbour_sum<<<1, 64>>>(d_in, d_out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("summed\n");
  return 0;
}
