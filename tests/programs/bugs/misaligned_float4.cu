// Bug: a float4 read from one float past a cudaMalloc'd buffer's start: a 16-byte access must
// start at a multiple of 16 (the usual slip when vectorising a loop over `x + offset`).
// expect: memcheck in kernel sum_float4
// expect: Invalid __global__ read of size 16 bytes
// expect: misaligned_float4.cu:14
// expect: must start at a multiple of 16
// tool: memcheck
// gpu-expect: misaligned
#include "../check.h"

__global__ void sum_float4(const float* x, float* out) {
  // x + 1 is 4-byte aligned, not 16: the float4 load below is misaligned on a GPU.
  const float4* v = reinterpret_cast<const float4*>(x + 1);
  const float4 q = v[threadIdx.x];
  out[threadIdx.x] = q.x + q.y + q.z + q.w;
}

int main() {
  float* d_x;
  float* d_out;
  CHECK(cudaMalloc(&d_x, 256 * sizeof(float)));
  CHECK(cudaMalloc(&d_out, 32 * sizeof(float)));
  CHECK(cudaMemset(d_x, 0, 256 * sizeof(float)));
  sum_float4<<<1, 32>>>(d_x, d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("summed\n");
  return 0;
}
