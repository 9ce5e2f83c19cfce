// Transpose on the GPU, b = transpose(a): a ladder where every rung changes only the order of the accesses.
//
//   transpose_naive        a thread per element: reads coalesced, writes a row of b apart
//   transpose_shared_tile  a 32 x 32 tile through shared memory: both sides coalesced, the tile
//                          read down its columns (32-way bank conflicts)
//   transpose_padded_tile  the tile one column wider: no bank conflicts
//   transpose_padded_rows  32 x 8 threads a tile, 4 elements each
//   transpose_whole_sectors  b written in whole 32-byte sectors at any shape, blocks in order down
//                          a's columns, taller tiles in a 1-D grid (a single row or column: a copy)
//
// Run them: lesson12_transpose --n 8192 --backend gpu   (lesson12_transpose --memory-report counts
// each rung's sectors and bank conflicts on the emulator)
// Like every kernel file, this one is plain CUDA and builds for the GPU and for the emulator.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/launch.cuh"
#include "transpose/transpose.hpp"

namespace gpulab::transpose {

namespace {

constexpr int kTile = 32;     // a tile is 32 x 32 elements: a warp reads one of its rows
constexpr int kRowsStep = 8;  // padded_rows: 32 x 8 threads, each moving 4 rows of the tile
constexpr int kSector = 8;    // floats in a 32-byte sector, the unit the L2 and DRAM move
constexpr int kBlockThreads = kTile * kRowsStep;

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

// [snippet:transpose_whole_sectors]
// What it adds: the copy bandwidth at any shape, where padded_rows falls to 60 % of it (4097 x 8191).
// - Whole sectors. When rows is no multiple of 8, a row of b starts inside a 32-byte sector, and
//   each warp's 32 floats touch 5 sectors, 2 of them in part; the L2 completes a part-written
//   sector by reading the rest from DRAM. So column c of this tile writes its piece of b's row c
//   from the sector boundary before y0, s = (c * rows) mod 8 rows early: kPad = 7 more rows read
//   (0 when rows is a multiple of 8, where every s is 0).
// - Blocks in order down a's columns (a 1-D grid, any shape): consecutive blocks write consecutive
//   pieces of the same 32 rows of b, and read each other's extra rows from the L2.
// - A taller tile: kRows rows, kRows / 8 + 1 loads in flight a thread before the barrier — and
//   still 8 blocks an SM, all 64 warps, which __launch_bounds__ asks of the compiler (at most 32
//   registers a thread; without it, 4097 x 8191 took 80 µs instead of 75 on an H200).
template <int kRows, int kPad>
__global__ void __launch_bounds__(kBlockThreads, 8)
    transpose_whole_sectors(const float* __restrict__ a, float* __restrict__ b, std::size_t rows, std::size_t cols) {
  static_assert(kRows % kTile == 0 && kPad < kSector, "whole warps of b's rows; a pad within a sector");
  constexpr int kLoaded = (kRows + kPad + kRowsStep - 1) / kRowsStep * kRowsStep;  // whole steps of 8 rows
  __shared__ float tile[kLoaded][kTile + 1];  // tile row i holds a's row y0 - kPad + i
  const auto tiles_down = static_cast<unsigned int>((rows + kPad + kRows - 1) / kRows);
  const std::size_t x0 = std::size_t{blockIdx.x / tiles_down} * kTile;  // the band's first column of a
  const std::int64_t y0 = std::int64_t{blockIdx.x % tiles_down} * kRows;
  const std::int64_t n_rows = static_cast<std::int64_t>(rows);
  const std::size_t x = x0 + threadIdx.x;
  for (int i = 0; i < kLoaded; i += kRowsStep) {
    const std::int64_t y = y0 - kPad + i + threadIdx.y;
    if (i + threadIdx.y < kRows + kPad && y >= 0 && y < n_rows && x < cols) {
      tile[i + threadIdx.y][threadIdx.x] = a[y * static_cast<std::int64_t>(cols) + static_cast<std::int64_t>(x)];
    }
  }
  __syncthreads();
  for (int j = 0; j < kTile; j += kRowsStep) {
    const std::size_t c = x0 + j + threadIdx.y;          // b's row = a's column
    const int s = static_cast<int>(c * rows % kSector);  // where b's row c stands in its sector
    for (int k = 0; k < kRows; k += kTile) {
      const std::int64_t r = y0 - s + k + threadIdx.x;  // b's column = a's row
      if (c < cols && r >= 0 && r < n_rows) b[c * rows + r] = tile[kPad - s + k + threadIdx.x][j + threadIdx.y];
    }
  }
}
// [/snippet]

// A single row or a single column: b holds a's elements in a's order, so the transpose is a copy,
// four floats a thread (both arrays from cudaMalloc: 16-byte aligned). Block 0 copies the last n % 4.
__global__ void transpose_vector(const float* a, float* b, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n / 4) reinterpret_cast<float4*>(b)[i] = reinterpret_cast<const float4*>(a)[i];
  if (blockIdx.x == 0 && threadIdx.x < n % 4) b[n / 4 * 4 + threadIdx.x] = a[n / 4 * 4 + threadIdx.x];
}

// ---------------------------------------------------------------- launchers

namespace {

void check_sizes(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols) {
  if (a.size() != rows * cols || b.size() != rows * cols) {
    throw std::invalid_argument("transpose: a and b must hold rows x cols = " + std::to_string(rows * cols) +
                                " elements");
  }
}

// The tiles over a: x across its columns, y down its rows (at most 65,535 tiles down: the lesson
// skips taller matrices for these rungs).
dim3 tiles(std::size_t rows, std::size_t cols) { return dim3(blocks_for(cols, kTile), blocks_for(rows, kTile)); }

template <int kRows, int kPad>
void launch_whole_sectors(const float* a, float* b, std::size_t rows, std::size_t cols) {
  const dim3 grid(blocks_for(cols, kTile) * blocks_for(rows + kPad, kRows));
  const dim3 block(kTile, kRowsStep);
  transpose_whole_sectors<kRows, kPad><<<grid, block>>>(a, b, rows, cols);
  check_launch("transpose_whole_sectors", grid, block);
}

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

void whole_sectors(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols) {
  check_sizes(a, b, rows, cols);
  if (b.empty()) return;
  if ((rows == 1 || cols == 1) && aligned16(a.data(), b.data())) {
    const dim3 grid(blocks_for(b.size() / 4 + 1, 256)), block(256);
    transpose_vector<<<grid, block>>>(a.data(), b.data(), b.size());
    check_launch("transpose_vector", grid, block);
  } else if (rows % kSector == 0) {
    launch_whole_sectors<64, 0>(a.data(), b.data(), rows, cols);  // every row of b starts a sector
  } else {
    launch_whole_sectors<128, kSector - 1>(a.data(), b.data(), rows, cols);
  }
}

}  // namespace gpulab::transpose
