// On the emulator a program's host code is compiled apart from its kernels — plain, while the
// kernels are instrumented for the checked mode (lessons/run/two_halves.hpp) — and what must stay
// one thing between the two stays one: a global constructed once, a __constant__ the host writes
// and a kernel reads, a __device__ counter a kernel adds to and the host reads, a __managed__
// variable both touch, a __host__ __device__ function both call, a __noinline__ __device__
// function, a kernel template at two types, a launch from a lambda in a static function.
#include "check.h"

struct Announced {
  Announced() { std::printf("a global, constructed once\n"); }
  int value = 7;
};
Announced announced;

__constant__ float scale;
__device__ unsigned int counted;
__managed__ int managed_total;

__host__ __device__ int twice(int x) { return 2 * x; }
__device__ __noinline__ float scaled(float v) { return v * scale; }

template <typename T>
__global__ void fill(T* out, int n, T base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = base + static_cast<T>(twice(i));
    atomicAdd(&counted, 1u);
  }
}

__global__ void apply_scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = scaled(x[i]);
  if (i == 0) managed_total += twice(21);
}

static void scale_all(float* d, int n) {
  auto launch = [&] { apply_scale<<<(n + 63) / 64, 64>>>(d, n); };
  launch();
}

int main() {
  const int n = 100;
  int* di;
  float* df;
  CHECK(cudaMalloc(&di, n * sizeof(int)));
  CHECK(cudaMalloc(&df, n * sizeof(float)));
  const float half = 0.5f;
  CHECK(cudaMemcpyToSymbol(scale, &half, sizeof half));
  managed_total = 1;
  fill<<<(n + 31) / 32, 32>>>(di, n, 10);
  fill<<<(n + 31) / 32, 32>>>(df, n, 1.0f);
  CHECK(cudaGetLastError());
  scale_all(df, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int hi[n];
  float hf[n];
  unsigned int threads = 0;
  CHECK(cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpyFromSymbol(&threads, counted, sizeof threads));
  std::printf("ints %d .. %d, floats scaled %g .. %g\n", hi[0], hi[n - 1], hf[0], hf[n - 1]);
  std::printf("threads counted %u, managed total %d, twice(4) on the host %d, the global's value %d\n", threads,
              managed_total, twice(4), announced.value);
  CHECK(cudaFree(di));
  CHECK(cudaFree(df));
  return 0;
}
