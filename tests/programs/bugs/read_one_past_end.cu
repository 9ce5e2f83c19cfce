// Bug: each element adds its right neighbour, and the last one reads one past the end.
// expect: memcheck in kernel pair_sums
// expect: Invalid __global__ read of size 4 bytes
// expect: read_one_past_end.cu:13
// expect: element 1000 of 'd_in' (1000 elements of 4 bytes), 1 element past its end
// tool: memcheck
// gpu-expect: Invalid __global__ read of size 4 bytes
#include "../check.h"

__global__ void pair_sums(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i] + in[i + 1];  // in[n] when i == n - 1
  }
}

int main() {
  const int n = 1000;
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i);
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CHECK(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice));
  pair_sums<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("out[999] = %g\n", h[n - 1]);
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return 0;
}
