// Bug: bytes 2..5 of a buffer read as one int: a 4-byte access must start at a multiple of 4.
// expect: memcheck in kernel read_int
// expect: Invalid __global__ read of size 4 bytes
// expect: misaligned.cu:12
// expect: is misaligned
// tool: memcheck
// gpu-expect: misaligned
#include "../check.h"

__global__ void read_int(const unsigned char* bytes, int* out) {
  const int* p = reinterpret_cast<const int*>(bytes + 2);
  out[threadIdx.x] = *p;
}

int main() {
  unsigned char* d_bytes;
  int* d_out;
  CHECK(cudaMalloc(&d_bytes, 64));
  CHECK(cudaMalloc(&d_out, 32 * sizeof(int)));
  CHECK(cudaMemset(d_bytes, 1, 64));
  read_int<<<1, 32>>>(d_bytes, d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("read\n");
  return 0;
}
