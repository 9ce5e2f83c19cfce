// A launch from inside a kernel (dynamic parallelism, which needs nvcc -rdc=true on a GPU): the
// emulator does not model it, and must say so through CUDA's error, not hang.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void child(int* out) { out[threadIdx.x] = 1; }

__global__ void parent(int* out, int* status) {
  child<<<1, 4>>>(out);
  if (threadIdx.x == 0) *status = cudaGetLastError();
}

int main() {
  int *out, *status;
  cudaMallocManaged(&out, 4 * sizeof(int));
  cudaMallocManaged(&status, sizeof(int));
  *status = -1;
  parent<<<1, 1>>>(out, status);
  cudaError_t launch = cudaGetLastError();
  cudaDeviceSynchronize();
  std::printf("outer launch: %s; the launch inside the kernel: %s\n", cudaGetErrorName(launch),
              cudaGetErrorName(static_cast<cudaError_t>(*status)));
  return 0;
}
