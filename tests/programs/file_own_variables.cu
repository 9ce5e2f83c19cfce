// Device variables of a file's own — `static`, or in an unnamed namespace — which the host writes
// and a kernel reads. On the emulator such a program is built in one instrumented piece rather
// than two halves (lessons/run/two_halves.hpp: each half would hold its own copy).
#include "check.h"

static __constant__ float weights[3];
namespace {
__device__ int hits;
}

__global__ void weigh(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = weights[i % 3] * x[i];
    atomicAdd(&hits, 1);
  }
}

int main() {
  const int n = 10;
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i);
  const float w[3] = {1.0f, 10.0f, 100.0f};
  CHECK(cudaMemcpyToSymbol(weights, w, sizeof w));
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, sizeof h));
  CHECK(cudaMalloc(&dy, sizeof h));
  CHECK(cudaMemcpy(dx, h, sizeof h, cudaMemcpyHostToDevice));
  weigh<<<1, 32>>>(dx, dy, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, dy, sizeof h, cudaMemcpyDeviceToHost));
  int count = 0;
  CHECK(cudaMemcpyFromSymbol(&count, hits, sizeof count));
  std::printf("y = %g %g %g %g, %d threads\n", h[0], h[1], h[2], h[9], count);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  return 0;
}
