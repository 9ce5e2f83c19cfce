// Threads that write the same value to one place with no barrier between them: a flag any thread
// may raise, every lane of a warp storing the row's mean (llm.c's layernorm kernel 5 does this),
// a shared "any" flag. compute-sanitizer's racecheck calls none of these a hazard — the value does
// not change — and neither does the emulator's checked mode; a write of a different value is one.
#include "check.h"

__global__ void find_negative(const float* x, int n, int* found) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] < 0) *found = 1;  // every thread that finds one writes the same 1
}

// One warp per row: each lane sums part of the row, the warp adds the parts by shuffles, and
// every lane stores the mean (the same value) — as llm.c's layernorm_forward_kernel5 stores it.
__global__ void row_means(const float* x, float* mean, int rows, int cols) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float sum = 0;
  for (int c = lane; c < cols; c += 32) sum += x[row * cols + c];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffff, sum, offset);
  mean[row] = sum / cols;
}

// Any thread of the block whose value passes the limit raises a shared flag; after the barrier
// thread 0 reads it.
__global__ void blocks_over(const float* x, int n, float limit, int* over) {
  __shared__ int any;
  if (threadIdx.x == 0) any = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > limit) any = 1;
  __syncthreads();
  if (threadIdx.x == 0) over[blockIdx.x] = any;
}

int main() {
  const int n = 3000, rows = 37, cols = 81;
  float* host = new float[n];
  for (int i = 0; i < n; ++i) host[i] = (float)((i * 7919) % 1000) / 10.0f - (i % 500 == 3 ? 200.0f : 0.0f);
  float *x, *mean;
  int *found, *over;
  const int blocks = (n + 255) / 256;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&mean, rows * sizeof(float)));
  CHECK(cudaMalloc(&found, sizeof(int)));
  CHECK(cudaMalloc(&over, blocks * sizeof(int)));
  CHECK(cudaMemcpy(x, host, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(found, 0, sizeof(int)));
  find_negative<<<blocks, 256>>>(x, n, found);
  CHECK(cudaGetLastError());
  row_means<<<(rows + 3) / 4, 128>>>(x, mean, rows, cols);
  CHECK(cudaGetLastError());
  blocks_over<<<blocks, 256>>>(x, n, 99.85f, over);
  CHECK(cudaGetLastError());
  int f = 0, o[16] = {};
  float m[rows];
  CHECK(cudaMemcpy(&f, found, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(m, mean, rows * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(o, over, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int c = 0; c < cols; ++c) s += host[r * cols + c];
    double d = s / cols - m[r];
    worst = d < 0 ? (worst > -d ? worst : -d) : (worst > d ? worst : d);
  }
  printf("a negative value found: %s\n", f ? "yes" : "no");
  printf("%d row means, largest difference from float64 below 1e-3: %s\n", rows, worst < 1e-3 ? "yes" : "no");
  printf("blocks with a value over the limit:");
  for (int b = 0; b < blocks; ++b) printf(" %d", o[b]);
  printf("\n");
  CHECK(cudaFree(x));
  CHECK(cudaFree(mean));
  CHECK(cudaFree(found));
  CHECK(cudaFree(over));
  delete[] host;
  return 0;
}
