// Transpose on the GPU, b = transpose(a): a ladder where every rung changes only the order of the accesses.
//
//   transpose_naive        a thread per element: reads coalesced, writes a row of b apart
//   transpose_shared_tile  a 32 x 32 tile through shared memory: both sides coalesced, the tile
//                          read down its columns (32-way bank conflicts)
//   transpose_padded_tile  the tile one column wider: no bank conflicts
//   transpose_padded_rows  32 x 8 threads a tile, 4 elements each
//
// Run them: lesson12_transpose --n 8192 --backend gpu   (lesson12_transpose --memory-report counts
// each rung's sectors and bank conflicts on the emulator)
// Like every kernel file, this one is plain CUDA and builds for the GPU and for the emulator.
#include <stdexcept>
#include <string>

#include "common/launch.cuh"
#include "transpose/transpose.hpp"

namespace gpulab::transpose {

namespace {

constexpr int kTile = 32;     // a tile is 32 x 32 elements: a warp reads one of its rows
constexpr int kRowsStep = 8;  // padded_rows: 32 x 8 threads, each moving 4 rows of the tile

}  // namespace

// ---------------------------------------------------------------- kernels

// [snippet:transpose_naive]
// Thread (x, y) moves a's element (row y, column x) to b's (row x, column y). A warp's 32 threads
// have consecutive x: they read 32 consecutive floats of a row of a (4 sectors), and write one
// float in each of 32 rows of b — 32 sectors, 4 bytes used of each 32 fetched.
__global__ void transpose_naive(const float* a, float* b, std::size_t rows, std::size_t cols) {
  const std::size_t col = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t row = std::size_t{blockIdx.y} * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) b[col * rows + row] = a[row * cols + col];
}
// [/snippet]

// [snippet:transpose_shared_tile]
// What it adds: the block stages a 32 x 32 tile of a in shared memory, read row by row (coalesced),
// and after the barrier writes it out row by row of b (coalesced too) — reading the tile down a
// column. A column of a 32-float-wide tile lies in one bank: 32 lanes, 32 words of one bank,
// 32 passes (a 32-way bank conflict) for every warp's read of the tile.
__global__ void transpose_shared_tile(const float* a, float* b, std::size_t rows, std::size_t cols) {
  __shared__ float tile[kTile][kTile];
  const std::size_t x = std::size_t{blockIdx.x} * kTile + threadIdx.x;  // a's column
  const std::size_t y = std::size_t{blockIdx.y} * kTile + threadIdx.y;  // a's row
  if (y < rows && x < cols) tile[threadIdx.y][threadIdx.x] = a[y * cols + x];
  __syncthreads();
  // The block's tile, written as the tile of b at (blockIdx.x, blockIdx.y): threadIdx.x now runs
  // along a row of b, which is a column of the tile.
  const std::size_t bx = std::size_t{blockIdx.y} * kTile + threadIdx.x;  // b's column = a's row
  const std::size_t by = std::size_t{blockIdx.x} * kTile + threadIdx.y;  // b's row = a's column
  if (by < cols && bx < rows) b[by * rows + bx] = tile[threadIdx.x][threadIdx.y];
}
// [/snippet]

// [snippet:transpose_padded_tile]
// What it adds: one column of padding. Row i of the tile now starts at word 33·i, so the column
// read (tile[threadIdx.x][threadIdx.y] for 32 values of threadIdx.x) falls in 32 different banks:
// one pass a warp. The padding costs 128 bytes of shared memory a block and nothing else.
__global__ void transpose_padded_tile(const float* a, float* b, std::size_t rows, std::size_t cols) {
  __shared__ float tile[kTile][kTile + 1];
  const std::size_t x = std::size_t{blockIdx.x} * kTile + threadIdx.x;
  const std::size_t y = std::size_t{blockIdx.y} * kTile + threadIdx.y;
  if (y < rows && x < cols) tile[threadIdx.y][threadIdx.x] = a[y * cols + x];
  __syncthreads();
  const std::size_t bx = std::size_t{blockIdx.y} * kTile + threadIdx.x;
  const std::size_t by = std::size_t{blockIdx.x} * kTile + threadIdx.y;
  if (by < cols && bx < rows) b[by * rows + bx] = tile[threadIdx.x][threadIdx.y];
}
// [/snippet]

// [snippet:transpose_padded_rows]
// What it adds: a block of 32 x 8 threads for the same 32 x 32 tile, each thread moving 4
// elements 8 rows apart. A quarter of the threads, each with 4 loads in flight before its first
// store: fewer threads to schedule and index, the same coalesced, conflict-free accesses.
__global__ void transpose_padded_rows(const float* a, float* b, std::size_t rows, std::size_t cols) {
  __shared__ float tile[kTile][kTile + 1];
  const std::size_t x = std::size_t{blockIdx.x} * kTile + threadIdx.x;
  const std::size_t y0 = std::size_t{blockIdx.y} * kTile + threadIdx.y;
  for (int i = 0; i < kTile; i += kRowsStep) {
    if (y0 + i < rows && x < cols) tile[threadIdx.y + i][threadIdx.x] = a[(y0 + i) * cols + x];
  }
  __syncthreads();
  const std::size_t bx = std::size_t{blockIdx.y} * kTile + threadIdx.x;
  const std::size_t by0 = std::size_t{blockIdx.x} * kTile + threadIdx.y;
  for (int i = 0; i < kTile; i += kRowsStep) {
    if (by0 + i < cols && bx < rows) b[(by0 + i) * rows + bx] = tile[threadIdx.x][threadIdx.y + i];
  }
}
// [/snippet]

// ---------------------------------------------------------------- launchers

namespace {

void check_sizes(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols) {
  if (a.size() != rows * cols || b.size() != rows * cols) {
    throw std::invalid_argument("transpose: a and b must hold rows x cols = " + std::to_string(rows * cols) +
                                " elements");
  }
}

// The tiles over a: x across its columns, y down its rows.
dim3 tiles(std::size_t rows, std::size_t cols) { return dim3(blocks_for(cols, kTile), blocks_for(rows, kTile)); }

}  // namespace

void naive(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols, int threads) {
  check_sizes(a, b, rows, cols);
  if (b.empty()) return;
  const auto t = static_cast<unsigned int>(threads);
  const dim3 block(t < 32 ? t : 32, t < 32 ? 1 : t / 32);  // a warp across a row of a
  const dim3 grid(blocks_for(cols, block.x), blocks_for(rows, block.y));
  transpose_naive<<<grid, block>>>(a.data(), b.data(), rows, cols);
  check_launch("transpose_naive", grid, block);
}

void shared_tile(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols) {
  check_sizes(a, b, rows, cols);
  if (b.empty()) return;
  const dim3 block(kTile, kTile);
  transpose_shared_tile<<<tiles(rows, cols), block>>>(a.data(), b.data(), rows, cols);
  check_launch("transpose_shared_tile", tiles(rows, cols), block);
}

void padded_tile(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols) {
  check_sizes(a, b, rows, cols);
  if (b.empty()) return;
  const dim3 block(kTile, kTile);
  transpose_padded_tile<<<tiles(rows, cols), block>>>(a.data(), b.data(), rows, cols);
  check_launch("transpose_padded_tile", tiles(rows, cols), block);
}

void padded_rows(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols) {
  check_sizes(a, b, rows, cols);
  if (b.empty()) return;
  const dim3 block(kTile, kRowsStep);
  transpose_padded_rows<<<tiles(rows, cols), block>>>(a.data(), b.data(), rows, cols);
  check_launch("transpose_padded_rows", tiles(rows, cols), block);
}

}  // namespace gpulab::transpose
