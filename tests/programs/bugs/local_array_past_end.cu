// Bug: each thread keeps a running window of its last 8 values in a local array, and the loop
// that fills it runs to `taps` (9), one past the array's end. On a GPU the write lands in the
// thread's other local variables (or its registers' spill slots) without a word.
// expect: memcheck in kernel moving_average
// expect: Invalid __local__ access: index 8 is out of bounds for type 'float [8]' (valid: 0 to 7)
// expect: local_array_past_end.cu:21
// tool: memcheck
// gpu-expect-clean: the write stays inside the thread's local memory, where compute-sanitizer looks
#include "../check.h"

#define WINDOW 8

__global__ void moving_average(const float* x, float* out, int n, int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float window[WINDOW];
  float sum = 0;
  for (int k = 0; k < taps; ++k) {
    int j = i - k;
    float v = j >= 0 ? x[j] : 0.0f;
    window[k] = v;  // k reaches taps - 1 = 8: past the array
    sum += v;
  }
  out[i] = sum / taps + window[0] * 0.0f;
}

int main() {
  const int n = 1000;
  float *x, *out;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMemset(x, 0, n * sizeof(float)));
  moving_average<<<(n + 255) / 256, 256>>>(x, out, n, WINDOW + 1);
  CHECK(cudaDeviceSynchronize());
  printf("done\n");
  CHECK(cudaFree(x));
  CHECK(cudaFree(out));
  return 0;
}
