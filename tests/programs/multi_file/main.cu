// A program in three files with an include folder and a macro from the command line, built as
//   nvcc -I include -D SCALE=3 main.cu saxpy.cu host_sum.cpp
//   gpulab_run -I include -D SCALE=3 main.cu saxpy.cu host_sum.cpp
// y = SCALE * (2x + y) for x = 0, 1, ..., y = 1: the sum is SCALE * (n (n - 1) + n).
#include <cstdio>
#include <vector>

#include "../check.h"
#include "vector_ops.cuh"

int main() {
  const int n = 1000;
  std::vector<float> x(n), y(n, 1.0f);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i);
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  saxpy<<<(n + 255) / 256, 256>>>(2.0f, dx, dy, n);
  CHECK(cudaGetLastError());
  scale_on_device(dy, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("sum %.0f over %d elements (SCALE %d)\n", host_sum(y.data(), n), n, SCALE);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  return 0;
}
