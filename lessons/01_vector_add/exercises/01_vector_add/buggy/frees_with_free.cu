// Host code that frees device memory with free() instead of cudaFree(): on a GPU the program
// crashes (signal 11); on the emulator free() reads the closed device memory before the pointer
// and the grader's host guard names it. The other cases are still graded.
// expect: Host code touched device memory
// expect: free() or delete on a pointer from cudaMalloc? Device memory is freed with cudaFree
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
