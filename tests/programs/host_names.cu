// What a course's first programs do that the emulator once refused: <memory> (smart pointers for
// host arrays), host variables named blockDim and gridDim (they hide CUDA's built-in ones in
// main, as under nvcc), and the profiler's start and stop calls.
#include <cuda_profiler_api.h>

#include <cstdio>
#include <memory>

#include "check.h"

__global__ void add(const float* a, const float* b, float* c, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) c[y * width + x] = a[y * width + x] + b[y * width + x];
}

int main() {
  const int width = 37, height = 19, n = width * height;
  auto a = std::make_unique<float[]>(n);
  std::shared_ptr<float[]> b(new float[n]);
  for (int i = 0; i < n; ++i) a[i] = static_cast<float>(i), b[i] = 2.0f;
  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, n * sizeof(float)));
  CHECK(cudaMalloc(&db, n * sizeof(float)));
  CHECK(cudaMalloc(&dc, n * sizeof(float)));
  CHECK(cudaMemcpy(da, a.get(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.get(), n * sizeof(float), cudaMemcpyHostToDevice));
  dim3 blockDim(16, 16);
  dim3 gridDim((width + blockDim.x - 1) / blockDim.x, (height + blockDim.y - 1) / blockDim.y);
  CHECK(cudaProfilerStart());
  add<<<gridDim, blockDim>>>(da, db, dc, width, height);
  CHECK(cudaGetLastError());
  CHECK(cudaProfilerStop());
  auto c = std::make_unique<float[]>(n);
  CHECK(cudaMemcpy(c.get(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += c[i];
  std::printf("sum %.0f on a grid of %u x %u blocks of %u x %u\n", sum, gridDim.x, gridDim.y, blockDim.x, blockDim.y);
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  return 0;
}
