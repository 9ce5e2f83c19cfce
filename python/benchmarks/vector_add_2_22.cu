// The same vector add as vector_add_2_22.py, as a whole program for gpulab_run: the kernel timed
// with CUDA events (median of 5 launches after a warm-up).
#include <algorithm>
#include <cstdio>
#include <vector>

__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 1 << 22;
  std::vector<float> ha(n, 1.0f), hb(n, 2.0f), hc(n);
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  cudaMemcpy(a, ha.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaEvent_t start, end;
  cudaEventCreate(&start);
  cudaEventCreate(&end);
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
  std::vector<float> ms(5);
  for (float& t : ms) {
    cudaEventRecord(start);
    add<<<(n + 255) / 256, 256>>>(a, b, c, n);
    cudaEventRecord(end);
    cudaEventSynchronize(end);
    cudaEventElapsedTime(&t, start, end);
  }
  std::sort(ms.begin(), ms.end());
  cudaMemcpy(hc.data(), c, n * sizeof(float), cudaMemcpyDeviceToHost);
  bool right = std::all_of(hc.begin(), hc.end(), [](float v) { return v == 3.0f; });
  std::printf("gpulab_run: vector add of 2^22 floats %.1f ms (median of 5; min %.1f, max %.1f); right: %s\n", ms[2],
              ms[0], ms[4], right ? "True" : "False");
  cudaFree(a), cudaFree(b), cudaFree(c);
}
