// An inclusive scan per warp with a partial mask (the last warp has fewer live elements, and
// lanes past the end wait at a __syncthreads() meanwhile), offsets from __constant__ memory,
// cooperative groups' inclusive_scan, streams, events and asynchronous copies.
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>

#include "check.h"

namespace cg = cooperative_groups;

__constant__ int offset[2];

__global__ void warp_scan(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned live = __ballot_sync(0xffffffff, i < n);  // the lanes that have an element
  if (i < n) {
    int v = in[i] + offset[0];
    int lane = threadIdx.x % 32;
    for (int d = 1; d < 32; d *= 2) {
      int up = __shfl_up_sync(live, v, d);
      if (lane >= d) v += up;
    }
    out[i] = v;
  }
  __syncthreads();  // the lanes past n wait here while the others shuffle
}

__global__ void tile_scan(const int* in, int* out, int n) {
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int inclusive = cg::inclusive_scan(tile, v);
  int exclusive = cg::exclusive_scan(tile, v);
  if (i < n) out[i] = inclusive * 1000 + exclusive;
}

int main() {
  const int n = 100;
  int h[n], r[n];
  for (int i = 0; i < n; ++i) h[i] = i % 7;
  int host_offset[2] = {1, 0};
  CHECK(cudaMemcpyToSymbol(offset, host_offset, sizeof host_offset));
  int back[2] = {0, 0};
  CHECK(cudaMemcpyFromSymbol(back, offset, sizeof back));
  int *d_in, *d_out, *pinned;
  CHECK(cudaMalloc(&d_in, sizeof h));
  CHECK(cudaMalloc(&d_out, sizeof r));
  CHECK(cudaMallocHost(&pinned, sizeof r));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, stream));
  CHECK(cudaMemcpyAsync(d_in, h, sizeof h, cudaMemcpyHostToDevice, stream));
  warp_scan<<<2, 64, 0, stream>>>(d_in, d_out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(pinned, d_out, sizeof r, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaEventRecord(stop, stream));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaStreamSynchronize(stream));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  int errors = 0;
  for (int i = 0; i < n; ++i) {
    int expected = 0;
    for (int j = i / 32 * 32; j <= i; ++j) expected += h[j] + 1;
    errors += pinned[i] != expected;
  }
  std::printf("offset from constant memory: %d; warp scan: %d errors; last %d; timed: %s\n", back[0], errors,
              pinned[n - 1], ms >= 0 ? "yes" : "no");
  tile_scan<<<1, 128>>>(d_in, d_out, n);
  CHECK(cudaMemcpy(r, d_out, sizeof r, cudaMemcpyDeviceToHost));
  errors = 0;
  for (int i = 0; i < n; ++i) {
    int inclusive = 0;
    for (int j = i / 16 * 16; j <= i; ++j) inclusive += h[j];
    errors += r[i] != inclusive * 1000 + inclusive - h[i];
  }
  std::printf("tile scans: %d errors\n", errors);
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return errors == 0 ? 0 : 1;
}
