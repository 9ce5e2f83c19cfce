// Bug: shifting an array left by one in place, x[i] = x[i + 1]: the last thread of each block reads
// the element the next block's first thread overwrites, and blocks of one launch run in no set
// order, so that thread may read the old value or the new one. (Write to a second array, or
// launch a kernel per step.) Whichever block runs first, the emulator reports the pair: a
// write-after-read or a read-after-write between blocks.
// expect: racecheck in kernel shift_left
// expect: hazard between blocks) on element
// expect: of 'x' (1000 elements of 4 bytes)
// expect: in_place_shift.cu:17
// tool: racecheck
// gpu-expect-clean: compute-sanitizer's racecheck checks shared memory only
#include "../check.h"

__global__ void shift_left(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) {
    x[i] = x[i + 1];
  }
}

int main() {
  const int n = 1000;
  float host[n];
  for (int i = 0; i < n; ++i) host[i] = (float)i;
  float* x;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMemcpy(x, host, n * sizeof(float), cudaMemcpyHostToDevice));
  shift_left<<<(n + 255) / 256, 256>>>(x, n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, x, n * sizeof(float), cudaMemcpyDeviceToHost));
  printf("x[255] = %.0f\n", host[255]);
  CHECK(cudaFree(x));
  return 0;
}
