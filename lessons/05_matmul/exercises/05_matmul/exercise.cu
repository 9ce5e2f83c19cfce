// Exercise 05 — matrix multiply with tiles in shared memory: C = A · B, row-major, any m, n, k
// (A is m × k, B is k × n, C is m × n; element (i, j) of an r × c matrix at i · c + j).
//
// matmul is given A, B and C in device memory. Write a tiled kernel and its launch; the tile
// size is yours (16 is a good start). A block of TILE × TILE threads computes a TILE × TILE
// tile of C; it walks along k, TILE at a time:
//   1. each thread loads one element of A's tile and one of B's into shared memory (zero where
//      the tile sticks out of the matrix),
//   2. everyone waits until both tiles are complete,
//   3. each thread adds its TILE products from the tiles,
//   4. everyone waits again before the next step overwrites the tiles.
// Then the threads inside C write their element.
//   gpulab_grade --exercise 05_matmul

#define TILE 16

__global__ void matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  // TODO 1: for k0 = 0, TILE, 2·TILE, … while k0 < k:
  //   as[ty][tx] = A's element (row, k0 + tx), or 0 outside A;
  //   bs[ty][tx] = B's element (k0 + ty, col), or 0 outside B;
  //   wait for the whole block (__syncthreads());
  //   sum += as[ty][i] · bs[i][tx] for i = 0 … TILE − 1;
  //   wait for the whole block again.
  // TODO 2: threads inside C (row < m, col < n) write sum to C's element (row, col).
}

void matmul(const float* a, const float* b, float* c, int m, int n, int k) {
  // TODO 3: a grid of TILE × TILE blocks that covers C — columns (n) across, rows (m) down, each
  // rounded up — and launch matmul_tiled (nothing to launch when C is empty).
}
