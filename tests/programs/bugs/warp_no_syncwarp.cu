// Bug: the lanes of a warp trade values through shared memory with no __syncwarp() between the
// write and the read. Since Volta a warp's lanes need not run in lockstep, so a lane may read its
// neighbour's slot before the neighbour wrote it.
// expect: racecheck in kernel swap_neighbours
// expect: Race reported between
// expect: warp_no_syncwarp.cu:17
// expect: 'slot' (32 × int
// tool: racecheck
// gpu-expect: Race reported between
#include "../check.h"

__global__ void swap_neighbours(const int* in, int* out) {
  __shared__ int slot[32];
  int lane = threadIdx.x;
  slot[lane] = in[lane];
  // missing: __syncwarp();
  out[lane] = slot[lane ^ 1];
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i;
  int *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, sizeof h));
  CHECK(cudaMalloc(&d_out, sizeof h));
  CHECK(cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice));
  swap_neighbours<<<1, 32>>>(d_in, d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("out[0] = %d\n", h[0]);
  return 0;
}
