// A sum reduction three ways — shared-memory tree with `extern __shared__`, warp shuffles, and
// cooperative groups — plus every atomic on unsigned, int, float and double values.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "check.h"

namespace cg = cooperative_groups;

__global__ void tree_sum(const int* in, int* out, int n) {
  extern __shared__ int partial[];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x * 2 + t;
  int v = i < n ? in[i] : 0;
  if (i + blockDim.x < n) v += in[i + blockDim.x];  // first add during load
  partial[t] = v;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 32; half /= 2) {
    if (t < half) partial[t] += partial[t + half];
    __syncthreads();
  }
  if (t < 32) {
    v = partial[t] + partial[t + 32];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    if (t == 0) atomicAdd(out, v);
  }
}

__global__ void cg_sum(const float* in, float* out, unsigned int* blocks_done, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ float warp_sums[32];
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  v = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    v = warp.thread_rank() < block.size() / 32 ? warp_sums[warp.thread_rank()] : 0.0f;
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) {
      atomicAdd(out, v);
      __threadfence();
      atomicAdd(blocks_done, 1);  // an unsigned int* and an int literal, as with nvcc
    }
  }
}

__global__ void atomics(unsigned int* u, int* s, float* f, double* d, unsigned long long* ull) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&u[0], 1);
  atomicSub(&u[1], 1u);
  atomicInc(&u[2], 9);  // counts 0..9 and wraps
  atomicDec(&u[3], 20);
  atomicAnd(&u[4], ~(1u << (t % 32)));
  atomicOr(&u[5], 1u << (t % 32));
  atomicXor(&u[6], 1u << (t % 8));
  atomicMax(&s[0], t);
  atomicMin(&s[1], -t);
  atomicExch(&s[2], 7);
  atomicCAS(&s[3], 0, t + 1);  // only the first thread to come finds 0
  atomicAdd(f, 0.5f);
  atomicAdd(d, 0.25);
  atomicAdd(ull, 1ull);
  int all = __syncthreads_count(t % 2 == 0);
  if (threadIdx.x == 0) atomicAdd(&s[4], all);
  if (__syncthreads_and(t >= 0) && __syncthreads_or(t == 5) && threadIdx.x == 0) atomicAdd(&s[5], 1);
}

int main() {
  const int n = 100003;
  int* h = (int*)std::malloc(n * sizeof(int));
  long long expected = 0;
  for (int i = 0; i < n; ++i) expected += h[i] = i % 100 - 37;
  int *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, sizeof(int)));
  CHECK(cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_out, 0, sizeof(int)));
  const int threads = 256, blocks = (n + 2 * threads - 1) / (2 * threads);
  tree_sum<<<blocks, threads, threads * sizeof(int)>>>(d_in, d_out, n);
  CHECK(cudaGetLastError());
  int sum = 0;
  CHECK(cudaMemcpy(&sum, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("tree + shuffles: %d (expected %lld)\n", sum, expected);

  float* f_in;
  float* f_out;
  unsigned int* done;
  CHECK(cudaMallocManaged(&f_in, n * sizeof(float)));
  CHECK(cudaMallocManaged(&f_out, sizeof(float)));
  CHECK(cudaMallocManaged(&done, sizeof(unsigned int)));
  for (int i = 0; i < n; ++i) f_in[i] = (i % 8) * 0.25f;
  *f_out = 0;
  *done = 0;
  cg_sum<<<40, 512>>>(f_in, f_out, done, n);
  CHECK(cudaDeviceSynchronize());
  std::printf("cooperative groups: %.2f over %u blocks\n", *f_out, *done);

  unsigned int* u;
  int* s;
  float* f;
  double* d;
  unsigned long long* ull;
  CHECK(cudaMallocManaged(&u, 7 * sizeof(unsigned int)));
  CHECK(cudaMallocManaged(&s, 6 * sizeof(int)));
  CHECK(cudaMallocManaged(&f, sizeof(float)));
  CHECK(cudaMallocManaged(&d, sizeof(double)));
  CHECK(cudaMallocManaged(&ull, sizeof(unsigned long long)));
  unsigned int u0[7] = {0, 1000, 0, 5, 0xffffffffu, 0, 0};
  int s0[6] = {-1, 1, 0, 0, 0, 0};
  for (int i = 0; i < 7; ++i) u[i] = u0[i];
  for (int i = 0; i < 6; ++i) s[i] = s0[i];
  *f = 0;
  *d = 0;
  *ull = 0;
  atomics<<<4, 64>>>(u, s, f, d, ull);
  CHECK(cudaDeviceSynchronize());
  std::printf("unsigned: add %u sub %u inc %u dec %u and %08x or %08x xor %08x\n", u[0], u[1], u[2], u[3], u[4], u[5],
              u[6]);
  std::printf("int: max %d min %d exch %d cas-set %s count %d and-or %d\n", s[0], s[1], s[2],
              s[3] >= 1 && s[3] <= 256 ? "yes" : "no", s[4], s[5]);
  std::printf("float %.1f double %.2f ull %llu\n", *f, *d, *ull);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(f_in);
  cudaFree(f_out);
  cudaFree(done);
  cudaFree(u);
  cudaFree(s);
  cudaFree(f);
  cudaFree(d);
  cudaFree(ull);
  std::free(h);
  return sum == expected ? 0 : 1;
}
