// Cooperative groups' tiles of several warps (64 to 512 threads), as the CUDA samples' reduction
// uses them: block_tile_memory, tiled_partition<128>, cg::reduce over a tile, its shfl, any, all
// and sync, and a block of 1024 threads split into tiles of 256.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "check.h"

namespace cg = cooperative_groups;

template <unsigned Tile, unsigned Block>
__global__ void tile_sums(const int* in, int* sums, int* firsts, int* votes, int* nexts, int n) {
  __shared__ cg::block_tile_memory<Block> scratch;
  cg::thread_block block = cg::this_thread_block(scratch);
  cg::thread_block_tile<Tile> tile = cg::tiled_partition<Tile>(block);
  const int i = blockIdx.x * Block + threadIdx.x;
  const int v = i < n ? in[i] : 0;
  const int sum = cg::reduce(tile, v, cg::plus<int>());
  const int largest = cg::reduce(tile, v, cg::greater<int>());
  const int first = tile.shfl(v, 0);  // every thread gets rank 0's value
  const int any_odd = tile.any(v % 2 != 0), all_small = tile.all(v < 1000);
  // A tile of the whole block: its sync() orders shared memory like __syncthreads().
  __shared__ int shared_values[Block];
  if (Tile == Block) {
    shared_values[tile.thread_rank()] = v;
    tile.sync();
    if (i < n) nexts[i] = shared_values[(tile.thread_rank() + 1) % Tile];
  }
  tile.sync();
  if (tile.thread_rank() == 0) {
    const int t = blockIdx.x * (Block / Tile) + tile.meta_group_rank();
    sums[t] = sum;
    firsts[t] = first * 2000 + largest;  // both below 2000
    votes[t] = any_odd * 10 + all_small;
  }
}

template <unsigned Tile, unsigned Block>
void run(const char* what, int n) {
  const int blocks = (n + Block - 1) / Block, tiles = blocks * (Block / Tile);
  int* host = new int[n];
  for (int i = 0; i < n; ++i) host[i] = (i * 37 + 11) % 1200;  // some of 1000 or more
  int *in, *sums, *firsts, *votes;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&sums, tiles * sizeof(int)));
  CHECK(cudaMalloc(&firsts, tiles * sizeof(int)));
  CHECK(cudaMalloc(&votes, tiles * sizeof(int)));
  int* nexts;
  CHECK(cudaMalloc(&nexts, n * sizeof(int)));
  CHECK(cudaMemcpy(in, host, n * sizeof(int), cudaMemcpyHostToDevice));
  tile_sums<Tile, Block><<<blocks, Block>>>(in, sums, firsts, votes, nexts, n);
  CHECK(cudaGetLastError());
  int* s = new int[tiles];
  int* f = new int[tiles];
  int* v = new int[tiles];
  CHECK(cudaMemcpy(s, sums, tiles * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(f, firsts, tiles * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(v, votes, tiles * sizeof(int), cudaMemcpyDeviceToHost));
  int* next = new int[n];
  CHECK(cudaMemcpy(next, nexts, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long total = 0, expected = 0;
  int wrong = 0;
  for (int t = 0; t < tiles; ++t) {
    long long e = 0;
    int odd = 0, small = 1, largest = 0;
    for (int k = 0; k < (int)Tile; ++k) {
      const int i = t * Tile + k;
      const int x = i < n ? host[i] : 0;
      e += x, odd |= x % 2, small &= x<1000, largest = x> largest ? x : largest;
    }
    const int first = t * (int)Tile < n ? host[t * Tile] : 0;
    wrong += s[t] != e || f[t] != first * 2000 + largest || v[t] != odd * 10 + small;
    total += s[t], expected += e;
  }
  if (Tile == Block) {  // each thread's neighbour in the block, handed through shared memory
    for (int i = 0; i < n; ++i) {
      const int j = i / (int)Block * (int)Block + (i % (int)Block + 1) % (int)Block;
      wrong += next[i] != (j < n ? host[j] : 0);
    }
  }
  printf("%s: %d tiles, sum %lld (expected %lld), %d wrong\n", what, tiles, total, expected, wrong);
  CHECK(cudaFree(in));
  CHECK(cudaFree(sums));
  CHECK(cudaFree(firsts));
  CHECK(cudaFree(votes));
  CHECK(cudaFree(nexts));
  delete[] next;
  delete[] host;
  delete[] s;
  delete[] f;
  delete[] v;
}

int main() {
  run<64, 128>("tiles of 64 in blocks of 128", 1000);
  run<128, 256>("tiles of 128 in blocks of 256", 5001);
  run<256, 1024>("tiles of 256 in blocks of 1024", 3000);
  run<512, 512>("a tile of 512, the whole block", 777);
  return 0;
}
