// Bug: the kernel writes its output at the offset meant for its input (a window 6400 elements
// into a larger array), so every write lands 21 to 25 KB past the end of the output — beyond any
// guard zone; on a GPU an illegal address, on the emulator a report (never a corrupted heap).
// expect: memcheck in kernel copy_window
// expect: Invalid __global__ write of size 4 bytes
// expect: write_far_past_end.cu:16
// expect: elements past its end
// expect: 'd_out' (1024 elements of 4 bytes)
// tool: memcheck
// gpu-expect: Invalid __global__ write of size 4 bytes
#include "../check.h"

__global__ void copy_window(const float* in, float* out, int offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i + offset] = in[i + offset];  // should be out[i]
  }
}

int main() {
  const int n = 1024, offset = 6400;
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, (n + offset) * sizeof(float)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CHECK(cudaMemset(d_in, 0, (n + offset) * sizeof(float)));
  copy_window<<<n / 256, 256>>>(d_in, d_out, offset, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("copied\n");
  return 0;
}
