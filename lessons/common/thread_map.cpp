// The thread map as a table.
#include "common/thread_map.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gpulab {

std::size_t ThreadMap::outside() const {
  return static_cast<std::size_t>(
      std::count_if(threads.begin(), threads.end(), [](const ThreadCell& t) { return !t.inside(); }));
}

std::string format_thread_map(const ThreadMap& map) {
  const bool two_d = map.rows > 1 || map.grid_y > 1 || map.block_y > 1;
  const std::string shape =
      two_d ? fmt::format("a {} x {} matrix", map.rows, map.cols) : fmt::format("n = {} elements", map.cols);
  std::string text = fmt::format(
      "Thread map of {} over {}, {}: {} threads launched, {} of them {}, stopped by the bounds guard (element —).\n{}\n"
      "Warps are 32 consecutive threads of a block (threadIdx.x fastest).\n\n",
      map.launch, shape, map.backend == Backend::gpu ? "on the GPU" : "emulated on the CPU", map.threads.size(),
      map.outside(), two_d ? "outside the matrix" : "past the end of the array", map.mapping);
  if (two_d) {
    text += fmt::format("{:>8}  {:>8}  {:>4}  {:>4}  {:>11}\n", "block", "thread", "warp", "lane", "row, col");
    for (const auto& t : map.threads) {
      text += fmt::format("{:>8}  {:>8}  {:>4}  {:>4}  {:>11}\n", fmt::format("{},{}", t.block_x, t.block_y),
                          fmt::format("{},{}", t.thread_x, t.thread_y), t.warp, t.lane,
                          t.inside() ? fmt::format("{}, {}", t.row, t.col) : std::string("—"));
    }
  } else {
    text += fmt::format("{:>6}  {:>6}  {:>4}  {:>4}  {:>7}\n", "block", "thread", "warp", "lane", "element");
    for (const auto& t : map.threads) {
      text += fmt::format("{:>6}  {:>6}  {:>4}  {:>4}  {:>7}\n", t.block_x, t.thread_x, t.warp, t.lane,
                          t.inside() ? std::to_string(t.col) : std::string("—"));
    }
  }
  return text;
}

}  // namespace gpulab
