#pragma once
// Which thread handled which element of a small launch: the data behind `--thread-map` and the
// app's Visualize view. A recording kernel fills it on the GPU or emulated; lessons 02 (1-D) and
// 03 (2-D) have one.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/backend.hpp"

namespace gpulab {

// One launched thread: where it sits in the grid, its warp, and the element its index points at
// (row and column). `inside` is false when that element is outside the data and the bounds guard
// stopped the thread.
struct ThreadCell {
  int block_x = 0, block_y = 0, thread_x = 0, thread_y = 0;
  int warp = 0, lane = 0;
  std::int64_t row = 0, col = 0;
  bool is_inside = false;
  bool inside() const { return is_inside; }
};

struct ThreadMap {
  std::string launch;   // "<<<3, 16>>>" or "<<<dim3(2, 2), dim3(32, 8)>>>"
  std::string mapping;  // one line: how a thread finds its element
  Backend backend = Backend::emulated;
  std::int64_t rows = 1, cols = 0;  // the elements' layout; an array is one row
  int grid_x = 1, grid_y = 1, block_x = 1, block_y = 1;
  std::vector<ThreadCell> threads;  // every launched thread, block by block

  std::size_t outside() const;  // threads the bounds guard stopped
};

// The readable table `--thread-map` prints: a header, then a line per thread.
std::string format_thread_map(const ThreadMap& map);

}  // namespace gpulab
