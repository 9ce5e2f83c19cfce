// A 256-bin histogram of bytes: global atomics, then private shared-memory histograms per block
// (read four bytes at a time as uchar4), on skewed data.
#include <vector>

#include "check.h"

__global__ void histogram_global(const unsigned char* data, int n, unsigned int* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&bins[data[i]], 1);
}

__global__ void histogram_shared(const uchar4* data, int n4, unsigned int* bins) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    uchar4 v = data[i];
    atomicAdd(&local[v.x], 1u);
    atomicAdd(&local[v.y], 1u);
    atomicAdd(&local[v.z], 1u);
    atomicAdd(&local[v.w], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    if (local[b] > 0) atomicAdd(&bins[b], local[b]);
  }
}

int main() {
  const int n = 1 << 18;
  std::vector<unsigned char> h(n);
  unsigned seed = 12345;
  std::vector<unsigned> expected(256, 0);
  for (int i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    h[i] = (seed >> 24) < 192 ? 7 : (unsigned char)(seed >> 16);  // three quarters in one bin
    expected[h[i]]++;
  }
  unsigned char* d;
  unsigned int* bins;
  CHECK(cudaMalloc(&d, n));
  CHECK(cudaMalloc(&bins, 256 * sizeof(unsigned int)));
  CHECK(cudaMemcpy(d, h.data(), n, cudaMemcpyHostToDevice));
  std::vector<unsigned> got(256);
  for (int way = 0; way < 2; ++way) {
    CHECK(cudaMemset(bins, 0, 256 * sizeof(unsigned int)));
    if (way == 0) {
      histogram_global<<<64, 256>>>(d, n, bins);
    } else {
      histogram_shared<<<64, 256>>>(reinterpret_cast<const uchar4*>(d), n / 4, bins);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got.data(), bins, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int b = 0; b < 256; ++b) wrong += got[b] != expected[b];
    std::printf("%s atomics: bin 7 holds %u of %d; %d bins wrong\n", way == 0 ? "global" : "shared-memory", got[7], n,
                wrong);
  }
  cudaFree(d);
  cudaFree(bins);
  return 0;
}
