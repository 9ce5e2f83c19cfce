// Bug: the input is copied in one stream and the kernel that reads it runs in another, with no
// event between them — so on a GPU the kernel may start before the copy ends and read old data.
// (The emulator does each stream's work at once, in the order it is queued, so the result comes
// out right here: the checked mode keeps CUDA's order of the streams and reports the pair.)
// expect: racecheck between streams
// expect: Race reported between Write access by cudaMemcpyAsync in stream 1
// expect: and Read access by kernel square in stream 2
// expect: (RAW hazard between streams) on bytes 0 to 3999 of 'x'
// expect: cudaStreamWaitEvent
// tool: racecheck
// gpu-expect-clean: compute-sanitizer has no check of the order of work between streams
#include "../check.h"

__global__ void square(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i];
}

int main() {
  const int n = 1000;
  float* host;
  CHECK(cudaMallocHost(&host, n * sizeof(float)));
  for (int i = 0; i < n; ++i) host[i] = (float)i;
  float *x, *y;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  cudaStream_t copies, compute;
  CHECK(cudaStreamCreate(&copies));
  CHECK(cudaStreamCreate(&compute));
  CHECK(cudaMemcpyAsync(x, host, n * sizeof(float), cudaMemcpyHostToDevice, copies));
  // missing: cudaEventRecord(copied, copies); cudaStreamWaitEvent(compute, copied, 0);
  square<<<(n + 255) / 256, 256, 0, compute>>>(x, y, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(host, y, n * sizeof(float), cudaMemcpyDeviceToHost, compute));
  CHECK(cudaStreamSynchronize(compute));
  printf("y[10] = %.0f\n", host[10]);
  CHECK(cudaStreamDestroy(copies));
  CHECK(cudaStreamDestroy(compute));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFreeHost(host));
  return 0;
}
