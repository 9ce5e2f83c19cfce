// Lesson 02's thread map on one backend (GPULAB_TEST_BACKEND: gpu or emulated): every element is
// taken by exactly one thread, and the threads past the end are the ones the guard stops.
#include <catch2/catch.hpp>

#include <algorithm>

#include "registry.hpp"

using namespace gpulab;

TEST_CASE("every element is handled by exactly one thread, and the rest fall outside the guard", "[thread_map]") {
  const Backend backend = *parse_backend(GPULAB_TEST_BACKEND);
  const std::size_t n = GENERATE(1, 40, 1000, 1025);
  const int block = GENERATE(16, 32, 256);
  CAPTURE(n, block);
  const ThreadMap map = find_lesson("02")->thread_map->record(static_cast<std::int64_t>(n), block, backend, "");
  const auto& records = map.threads;
  const std::size_t blocks = (n + static_cast<std::size_t>(block) - 1) / static_cast<std::size_t>(block);
  REQUIRE(records.size() == blocks * static_cast<std::size_t>(block));
  std::vector<int> taken(n, 0);
  std::size_t outside = 0;
  for (std::size_t t = 0; t < records.size(); ++t) {
    const ThreadCell& r = records[t];
    CAPTURE(t);
    REQUIRE(static_cast<std::size_t>(r.block_x) == t / static_cast<std::size_t>(block));
    REQUIRE(static_cast<std::size_t>(r.thread_x) == t % static_cast<std::size_t>(block));
    REQUIRE(r.warp == r.thread_x / 32);
    REQUIRE(r.lane == r.thread_x % 32);
    if (!r.inside()) {
      ++outside;
      REQUIRE(t >= n);
    } else {
      REQUIRE(static_cast<std::size_t>(r.col) == t);
      ++taken[static_cast<std::size_t>(r.col)];
    }
  }
  CHECK(outside == records.size() - n);
  CHECK(std::all_of(taken.begin(), taken.end(), [](int k) { return k == 1; }));
}

TEST_CASE("lesson 03's thread map covers every element once, warps along rows or down columns", "[thread_map]") {
  const Backend backend = *parse_backend(GPULAB_TEST_BACKEND);
  const std::int64_t n = GENERATE(1, 12, 33);
  const int block = GENERATE(16, 64, 256);
  const std::string variant = GENERATE("coalesced", "transposed");
  CAPTURE(n, block, variant);
  const ThreadMap map = find_lesson("03")->thread_map->record(n, block, backend, variant);
  CHECK(map.rows == n);
  CHECK(map.cols == n);
  CHECK(map.threads.size() ==
        static_cast<std::size_t>(map.grid_x) * map.grid_y * static_cast<std::size_t>(map.block_x) * map.block_y);
  std::vector<int> taken(static_cast<std::size_t>(n * n), 0);
  for (const ThreadCell& t : map.threads) {
    CHECK(t.warp == (t.thread_y * map.block_x + t.thread_x) / 32);
    const std::int64_t x = std::int64_t{t.block_x} * map.block_x + t.thread_x;
    const std::int64_t y = std::int64_t{t.block_y} * map.block_y + t.thread_y;
    // Coalesced: x walks along a row (consecutive columns); transposed: down a column.
    CHECK(t.col == (variant == "coalesced" ? x : y));
    CHECK(t.row == (variant == "coalesced" ? y : x));
    CHECK(t.inside() == (t.row < n && t.col < n));
    if (t.inside()) ++taken[static_cast<std::size_t>(t.row * n + t.col)];
  }
  CHECK(std::all_of(taken.begin(), taken.end(), [](int k) { return k == 1; }));
  CHECK(map.outside() == map.threads.size() - static_cast<std::size_t>(n * n));
}
