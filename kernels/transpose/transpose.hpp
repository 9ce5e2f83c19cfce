#pragma once
// Transpose, b = transpose(a), for a rows x cols matrix a stored row by row (element (r, c) at r * cols + c);
// b has cols rows of rows elements (element (c, r) at c * rows + r). No arithmetic: every byte is
// read once and written once, so the copy bandwidth is the ceiling, and the order of the accesses
// is the whole lesson.
#include <cstddef>
#include <span>

namespace gpulab::transpose {

// One thread, in a's order: reads consecutive, writes a row of b apart.
void cpu_naive(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols);
// One thread, 32 x 32 tiles: both the reads and the writes of a tile stay in the cache.
void cpu_blocked(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols);
// Every core (OpenMP), the tiles split between threads.
void cpu_threads(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols);

}  // namespace gpulab::transpose

// The GPU launchers: spans of device memory, queued on the device the thread chose (common/backend.hpp).
namespace gpulab::transpose {

// A thread per element, threads x threads-of-a-warp blocks: reads coalesced, writes 32 sectors a warp.
void naive(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols, int threads);
// A 32 x 32 tile through shared memory: reads and writes coalesced, the tile read down its columns
// (32-way bank conflicts).
void shared_tile(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols);
// The same tile one column wider (32 x 33): a column of it lies in 32 different banks.
void padded_tile(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols);
// The padded tile with 32 x 8 threads, each moving 4 elements: fewer threads, more bytes in flight each.
void padded_rows(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols);
// The copy bandwidth at any shape: b written in whole 32-byte sectors, blocks in order down a's
// columns, tiles of 64 or 128 rows in a 1-D grid; a single row or column copied four floats at a time.
void whole_sectors(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols);

}  // namespace gpulab::transpose
