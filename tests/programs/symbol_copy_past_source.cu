// cudaMemcpyToSymbol told to copy more than its host source holds, the source ending where the
// program's memory ends: an error the program can read (cudaErrorInvalidValue), not a crash.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>

#include "check.h"

__constant__ float weights[1024];

__global__ void first_weight(float* out) { *out = weights[0]; }

int main() {
  // Two pages, the second given back: the last 16 floats of the first are all the source holds.
  const long page = sysconf(_SC_PAGESIZE);
  char* pages = static_cast<char*>(mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  munmap(pages + page, page);
  float* source = reinterpret_cast<float*>(pages + page) - 16;
  for (int i = 0; i < 16; ++i) source[i] = 2.0f;
  const cudaError_t past = cudaMemcpyToSymbol(weights, source, sizeof weights);
  std::printf("1024 floats from a source of 16: %s\n", cudaGetErrorName(past));
  cudaGetLastError();
  CHECK(cudaMemcpyToSymbol(weights, source, 16 * sizeof(float)));
  float* out;
  CHECK(cudaMalloc(&out, sizeof(float)));
  first_weight<<<1, 1>>>(out);
  float w = 0;
  CHECK(cudaMemcpy(&w, out, sizeof w, cudaMemcpyDeviceToHost));
  std::printf("16 floats: cudaSuccess, the first %.1f\n", w);
  return 0;
}
