// Matrix add on a 2-D grid, C = A + B, rows x cols matrices stored row by row.
//
//   add_coalesced    threadIdx.x runs along a row: a warp reads 128 contiguous bytes
//   add_coalesced_float4  the same, four columns per thread with 16-byte accesses, any width
//   add_transposed   threadIdx.x runs down a column: a warp's 32 reads are a row apart
//
// Run them: lesson03_matrix_add --variant all --n 4096
// Like every kernel file, this one is plain CUDA and builds for the GPU and for the emulator.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "base/launch_description.hpp"
#include "common/launch.cuh"
#include "matrix_add/matrix_add.hpp"

namespace gpulab::matrix_add {

// ---------------------------------------------------------------- kernels

// [snippet:add_coalesced]
// A 2-D grid of 2-D blocks: each thread finds its element's column from the x coordinates and its
// row from the y coordinates. Threads of a warp have consecutive threadIdx.x, so they take
// consecutive columns of one row — consecutive addresses, which the memory serves in a few wide
// transactions (coalesced). The guard handles sizes that are no multiple of the block.
__global__ void add_coalesced(const float* a, const float* b, float* c, std::size_t rows, std::size_t cols) {
  const std::size_t col = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t row = std::size_t{blockIdx.y} * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    const std::size_t i = row * cols + col;
    c[i] = a[i] + b[i];
  }
}
// [/snippet]

// [snippet:add_coalesced_float4]
// What it adds over add_coalesced: each thread adds four neighbouring columns, with one 16-byte
// load from each matrix and one 16-byte store, so a warp moves 512 bytes per memory instruction
// instead of 128, and more bytes are in flight. A 16-byte access must start at a multiple of 16
// bytes; when the width is no multiple of 4, most rows do not start at one. So each row is cut
// where its first aligned element is: up to 3 columns of head, a body of whole float4s, up to 3
// columns of tail. Thread x of a row takes float4 x of the body; the threads after the last take
// one column of the head or the tail each (one thread taking all six in a loop would wait for
// each load and store in turn: c might be a or b, so the compiler cannot start the next load first).
// A block is a stretch of one row (threads × 1, not 32 × 8 as the one-element kernels): at 4097
// columns, launched back to back on an H100, 32 × 8 blocks took 84 µs where these take 72. A grid
// has at most 65535 rows of blocks, so a block takes every gridDim.y-th row from its own on.
__global__ void add_coalesced_float4(const float* a, const float* b, float* c, std::size_t rows, std::size_t cols) {
  const std::size_t t = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  for (std::size_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const std::size_t start = row * cols;  // the row's first element
    const std::size_t to_aligned = (4 - start % 4) % 4;
    const std::size_t head = to_aligned < cols ? to_aligned : cols;
    const std::size_t body = (cols - head) / 4;  // whole float4s from start + head
    if (t < body) {
      // A multiple of 4: the body's float4s are 16-byte aligned. Indexed as float4s (not cast at
      // a float offset, i + 4t), nvcc keeps the store one 16-byte store; cast at the offset, it
      // split it into 4 + 4 + 8 bytes (the PTX showed st.global.f32, .f32, .v2.f32) and wrote
      // twice the sectors.
      const std::size_t i = start + head;
      const float4 x = reinterpret_cast<const float4*>(a + i)[t];
      const float4 y = reinterpret_cast<const float4*>(b + i)[t];
      reinterpret_cast<float4*>(c + i)[t] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    } else if (t - body < cols - 4 * body) {  // the row's head and tail: cols − 4·body columns
      const std::size_t k = t - body;
      const std::size_t col = k < head ? k : 4 * body + k;  // head columns 0 … head − 1, then the tail
      c[start + col] = a[start + col] + b[start + col];
    }
  }
}
// [/snippet]

// [snippet:add_transposed]
// The same arithmetic with x and y swapped: consecutive threads of a warp now take consecutive
// rows of one column, so their 32 addresses are cols * 4 bytes apart. Each falls in a different
// memory segment: the warp needs 32 transactions where the coalesced kernel needed 4, and most
// of every segment fetched is thrown away.
__global__ void add_transposed(const float* a, const float* b, float* c, std::size_t rows, std::size_t cols) {
  const std::size_t row = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t col = std::size_t{blockIdx.y} * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    const std::size_t i = row * cols + col;
    c[i] = a[i] + b[i];
  }
}
// [/snippet]

// [snippet:record]
// Every launched thread writes down its coordinates, its warp (threads of a block are numbered
// x fastest, then y, and cut into warps of 32) and the element its index points at under the
// mapping, and whether that element is inside the matrix (if not, the guard stops the thread).
__global__ void record(ThreadRecord* records, std::size_t rows, std::size_t cols, bool transposed) {
  const std::size_t x = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t y = std::size_t{blockIdx.y} * blockDim.y + threadIdx.y;
  const std::size_t row = transposed ? x : y;
  const std::size_t col = transposed ? y : x;
  const unsigned int in_block = threadIdx.y * blockDim.x + threadIdx.x;
  ThreadRecord r;
  r.block_x = blockIdx.x;
  r.block_y = blockIdx.y;
  r.thread_x = threadIdx.x;
  r.thread_y = threadIdx.y;
  r.warp = in_block / warpSize;
  r.lane = in_block % warpSize;
  r.row = static_cast<std::int64_t>(row);
  r.col = static_cast<std::int64_t>(col);
  r.inside = row < rows && col < cols;
  const std::size_t block = std::size_t{blockIdx.y} * gridDim.x + blockIdx.x;
  records[block * blockDim.x * blockDim.y + in_block] = r;  // one record per thread: no guard needed
}
// [/snippet]

// ---------------------------------------------------------------- launchers

namespace {

void check_sizes(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
                 std::size_t cols) {
  if (a.size() != rows * cols || b.size() != rows * cols || c.size() != rows * cols) {
    throw std::invalid_argument("matrix_add: a, b and c must hold rows x cols = " + std::to_string(rows * cols) +
                                " elements");
  }
}

// [snippet:block_shape]
// 32 threads wide (one warp per row of the block), threads / 32 high.
dim3 block_shape(int threads) {
  const auto t = static_cast<unsigned int>(threads);
  const unsigned int x = t < 32 ? t : 32;
  return dim3(x, t / x);
}
// [/snippet]

// The grid over a rows x cols matrix: x covers columns (coalesced), or rows (transposed).
dim3 grid_for(std::size_t rows, std::size_t cols, dim3 block, bool transposed) {
  return transposed ? dim3(blocks_for(rows, block.x), blocks_for(cols, block.y))
                    : dim3(blocks_for(cols, block.x), blocks_for(rows, block.y));
}

}  // namespace

void coalesced(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
               std::size_t cols, int threads) {
  check_sizes(a, b, c, rows, cols);
  if (c.empty()) return;
  const dim3 block = block_shape(threads);
  add_coalesced<<<grid_for(rows, cols, block, false), block>>>(a.data(), b.data(), c.data(), rows, cols);
  check_launch("add_coalesced", grid_for(rows, cols, block, false), block);
}

void coalesced_float4(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
                      std::size_t cols, int threads) {
  check_sizes(a, b, c, rows, cols);
  if (c.empty()) return;
  if (!aligned16(a.data(), b.data(), c.data())) {
    coalesced(a, b, c, rows, cols, threads);  // float4 needs 16-byte aligned matrices
    return;
  }
  const dim3 block(static_cast<unsigned int>(threads), 1);
  // A thread per float4 of the body, and one per column of the head and tail: at most 6 of those
  // (none when the width is a multiple of 4, so that every row starts aligned).
  const std::size_t threads_per_row = cols % 4 == 0 ? cols / 4 : cols / 4 + 6;
  const dim3 grid(blocks_for(threads_per_row, block.x), static_cast<unsigned int>(std::min<std::size_t>(rows, 65535)));
  add_coalesced_float4<<<grid, block>>>(a.data(), b.data(), c.data(), rows, cols);
  check_launch("add_coalesced_float4", grid, block);
}

void transposed(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
                std::size_t cols, int threads) {
  check_sizes(a, b, c, rows, cols);
  if (c.empty()) return;
  const dim3 block = block_shape(threads);
  add_transposed<<<grid_for(rows, cols, block, true), block>>>(a.data(), b.data(), c.data(), rows, cols);
  check_launch("add_transposed", grid_for(rows, cols, block, true), block);
}

std::size_t launched_threads(std::size_t rows, std::size_t cols, int threads, bool transposed) {
  const dim3 block = block_shape(threads);
  const dim3 grid = grid_for(rows, cols, block, transposed);
  return std::size_t{grid.x} * grid.y * block.x * block.y;
}

// The same grid as coalesced() or transposed(), so the map shows the launch those kernels get.
void record_threads(std::span<ThreadRecord> records, std::size_t rows, std::size_t cols, int threads, bool transposed) {
  const dim3 block = block_shape(threads);
  const dim3 grid = grid_for(rows, cols, block, transposed);
  const std::size_t launched = std::size_t{grid.x} * grid.y * block.x * block.y;
  if (records.size() != launched) {
    throw std::invalid_argument("record_threads: records must hold one entry per launched thread (" +
                                std::to_string(launched) + ")");
  }
  if (rows == 0 || cols == 0) return;
  record<<<grid, block>>>(records.data(), rows, cols, transposed);
  check_launch("record", grid, block);
}

}  // namespace gpulab::matrix_add
