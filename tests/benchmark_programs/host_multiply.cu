// Host code in a learner's .cu: the CPU multiply a learner first writes (i, j, k), timed by the
// program itself, beside a kernel. emulator_benchmark builds it with gpulab_run's build twice —
// as this .cu (on the emulator: its host code in the plain half, lessons/run/two_halves.hpp) and
// as the same text in a .cpp (host code as nvcc hands it to the host compiler) — and compares the
// times it prints:  host_multiply N REPS  ->  "multiply: MEDIAN ms"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

void multiply_on_cpu(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c, int n) {
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      float sum = 0;
      for (int k = 0; k < n; ++k) sum += a[i * n + k] * b[k * n + j];
      c[i * n + j] = sum;
    }
  }
}

#ifdef __CUDACC__  // (nvcc, or the emulator's cuda_runtime.h)
__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
#endif

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 512, reps = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<float> a(static_cast<std::size_t>(n) * n, 1.0f), b(a.size(), 0.5f), c(a.size());
  multiply_on_cpu(a, b, c, n);  // warm-up
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    multiply_on_cpu(a, b, c, n);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
#ifdef __CUDACC__
  float* d = nullptr;
  cudaMalloc(&d, c.size() * sizeof(float));
  cudaMemcpy(d, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<(n * n + 255) / 256, 256>>>(d, n * n);
  cudaMemcpy(c.data(), d, c.size() * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
#endif
  std::printf("multiply: %.2f ms (c[0] = %g)\n", ms[ms.size() / 2], c[0]);
  return 0;
}
