#pragma once
// The thread hierarchy: y[i] = 2 x[i] + 1 computed with grids and blocks of every shape, and a
// kernel that records which block, thread and warp handled each element.
#include <cstddef>
#include <cstdint>
#include <span>

namespace gpulab::thread_hierarchy {

// What one launched thread did: its coordinates, and its element (-1: it fell outside the bounds
// guard and did nothing). The data the app's thread map draws.
struct ThreadRecord {
  std::uint32_t block = 0, thread = 0, warp = 0, lane = 0;
  std::int64_t element = -1;
};

}  // namespace gpulab::thread_hierarchy

// The GPU launchers: spans of device memory, queued on the device the thread chose (common/backend.hpp).
namespace gpulab::thread_hierarchy {

// <<<1, n>>>: one block of n threads (refused past the device's max threads per block).
void one_block(std::span<const float> x, std::span<float> y, int block);
// A 1-D grid of 1-D blocks, one thread per element.
void blocks_1d(std::span<const float> x, std::span<float> y, int block);
// A 2-D grid of 1-D blocks: rows of 256 blocks, the block's number from blockIdx.y and .x.
void grid_2d(std::span<const float> x, std::span<float> y, int block);
// 3-D blocks of 8 x 8 x (block / 64) threads in a 1-D grid.
void block_3d(std::span<const float> x, std::span<float> y, int block);
// A grid that fills the GPU once; each thread strides over the array.
void grid_stride(std::span<const float> x, std::span<float> y, int block);
// Theoretical occupancy of blocks_1d's kernel at this block size.
double blocks_1d_occupancy(int block);
// One record per launched thread of a blocks_1d launch over n elements (records.size() must be
// the grid's blocks times `block`).
void record_threads(std::span<ThreadRecord> records, std::size_t n, int block);

}  // namespace gpulab::thread_hierarchy
