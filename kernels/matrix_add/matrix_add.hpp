#pragma once
// Matrix add, C = A + B, for rows x cols matrices stored row by row (element (r, c) at r * cols + c).
#include <cstddef>
#include <cstdint>
#include <span>

namespace gpulab::matrix_add {

// What one launched thread of a 2-D launch did: its coordinates, its warp, and the element its
// index points at (`inside` false: outside the matrix, so the bounds guard stopped it). The data
// the app's thread map draws.
struct ThreadRecord {
  std::uint32_t block_x = 0, block_y = 0, thread_x = 0, thread_y = 0, warp = 0, lane = 0;
  std::int64_t row = 0, col = 0;
  bool inside = false;
};

// One thread; the inner loop walks along a row: consecutive addresses.
void cpu_row_order(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
                   std::size_t cols);
// One thread; the inner loop walks down a column: addresses cols * 4 bytes apart.
void cpu_column_order(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
                      std::size_t cols);
// Every core (OpenMP), rows split between threads, each in row order.
void cpu_threads(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
                 std::size_t cols);

}  // namespace gpulab::matrix_add

// The GPU launchers: spans of device memory, queued on the device the thread chose (common/backend.hpp).
namespace gpulab::matrix_add {

// is the block's size: blocks are 32 threads wide and threads / 32 high (narrower below 32).

// A 2-D grid; consecutive threads of a warp take consecutive columns of a row (coalesced).
void coalesced(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
               std::size_t cols, int threads);
// The coalesced mapping with four neighbouring columns per thread, 16-byte loads where aligned.
void coalesced_float4(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
                      std::size_t cols, int threads);
// The same grid turned around: consecutive threads take consecutive rows of a column.
void transposed(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
                std::size_t cols, int threads);
// One record per launched thread of the coalesced (or, with `transposed`, the transposed) launch,
// block by block; records.size() must be launched_threads(rows, cols, threads, transposed).
std::size_t launched_threads(std::size_t rows, std::size_t cols, int threads, bool transposed);
void record_threads(std::span<ThreadRecord> records, std::size_t rows, std::size_t cols, int threads, bool transposed);

}  // namespace gpulab::matrix_add
