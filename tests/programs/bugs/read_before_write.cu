// Bug: the input is allocated but never copied to the device: the kernel reads what cudaMalloc
// left there.
// expect: initcheck in kernel add_one
// expect: Uninitialized __global__ memory read of size 4 bytes
// expect: read_before_write.cu:13
// expect: 'd_x' (1000 elements of 4 bytes)
// tool: initcheck
// gpu-expect: Uninitialized __global__ memory read of size 4 bytes
#include "../check.h"

__global__ void add_one(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}

int main() {
  const int n = 1000;
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i);
  float *d_x, *d_y;
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  // missing: cudaMemcpy(d_x, h, n * sizeof(float), cudaMemcpyHostToDevice);
  add_one<<<(n + 255) / 256, 256>>>(d_x, d_y, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("y[0] = %g\n", h[0]);
  return 0;
}
