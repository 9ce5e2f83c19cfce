// Bug: cudaMemcpyToSymbol is told to copy 1024 floats from a source that holds 16, which ends where
// the program's memory ends. The emulator's copy reads no further than the program's memory and
// returns cudaErrorInvalidValue, with what it found; a GPU's driver returned cudaSuccess for it
// (an H200, driver 580.159.04), having read whatever lay past the array.
// expect: cudaMemcpyToSymbol
// expect: the host source is not 4096 bytes of the program's memory
// tool: memcheck
// gpu-expect-clean: an H200's driver (580.159.04) returned cudaSuccess and compute-sanitizer checks no host memory
#include <sys/mman.h>
#include <unistd.h>

#include "../check.h"

__constant__ float weights[1024];

__global__ void first_weight(float* out) { *out = weights[0]; }

int main() {
  // Two pages, the second given back: the last 16 floats of the first are all the source holds.
  const long page = sysconf(_SC_PAGESIZE);
  char* pages = static_cast<char*>(mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  munmap(pages + page, page);
  float* source = reinterpret_cast<float*>(pages + page) - 16;
  for (int i = 0; i < 16; ++i) source[i] = 2.0f;
  CHECK(cudaMemcpyToSymbol(weights, source, sizeof weights));  // should be 16 * sizeof(float)
  float* out;
  CHECK(cudaMalloc(&out, sizeof(float)));
  first_weight<<<1, 1>>>(out);
  float w = 0;
  CHECK(cudaMemcpy(&w, out, sizeof w, cudaMemcpyDeviceToHost));
  std::printf("the first weight: %.1f\n", w);
  CHECK(cudaFree(out));
  return 0;
}
