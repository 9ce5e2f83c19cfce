// Host code that frees device memory with free() instead of cudaFree(): the program crashes.
// The grader reports the crash as the case's failure and grades the other cases.
// expect: ended by signal
#include <cstdlib>
__global__ void add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
void vector_add(const float* a, const float* b, float* c, int n) {
  if (n == 0) return;
  float* scratch = nullptr;
  cudaMalloc(&scratch, sizeof(float) * n);
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
  free(scratch);
}
