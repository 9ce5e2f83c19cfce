// Bug: every thread adds 1 to a shared counter with `+=`, not atomicAdd: the read-modify-writes of
// a block's threads overlap and updates are lost. (The emulator runs a block's threads one after
// another between barriers, so the count even comes out right; racecheck reports it anyway.)
// expect: racecheck in kernel count_positive
// expect: Race reported between
// expect: shared_counter.cu:18
// expect: 'count' (int)
// tool: racecheck
// gpu-expect: Race reported between
#include "../check.h"

__global__ void count_positive(const int* in, int* counts) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (in[i] > 0) {
    count += 1;  // should be atomicAdd(&count, 1)
  }
  __syncthreads();
  if (threadIdx.x == 0) counts[blockIdx.x] = count;
}

int main() {
  const int blocks = 64, threads = 256, n = blocks * threads;
  int* h = new int[n];
  for (int i = 0; i < n; ++i) h[i] = 1;
  int *d_in, *d_counts;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_counts, blocks * sizeof(int)));
  CHECK(cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice));
  count_positive<<<blocks, threads>>>(d_in, d_counts);
  CHECK(cudaGetLastError());
  int counts[blocks];
  CHECK(cudaMemcpy(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost));
  int right = 0;
  for (int c : counts) right += c == threads;
  std::printf("%d of %d blocks counted right\n", right, blocks);
  return 0;
}
