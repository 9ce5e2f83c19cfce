// Bug: the kernel's loads go through a __device__ function the compiler keeps out of line, and
// the last thread's reads one past the end. (On the emulator the program's host code is compiled
// plain and its device code instrumented: the function called is the instrumented one.)
// expect: memcheck in kernel neighbour_sums
// expect: Invalid __global__ read of size 4 bytes
// expect: device_function_past_end.cu:12
// expect: element 512 of 'd_in' (512 elements of 4 bytes), 1 element past its end
// tool: memcheck
// gpu-expect: Invalid __global__ read of size 4 bytes
#include "../check.h"

__device__ __noinline__ float load(const float* p, int i) { return p[i]; }

__global__ void neighbour_sums(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = load(in, i) + load(in, i + 1);  // in[n] when i == n - 1
}

int main() {
  const int n = 512;
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = 1.0f;
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CHECK(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice));
  neighbour_sums<<<n / 128, 128>>>(d_in, d_out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("out[0] = %g\n", h[0]);
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return 0;
}
