// Lesson 02's thread map on one backend (GPULAB_TEST_BACKEND: gpu or emulated): every element is
// taken by exactly one thread, and the threads past the end are the ones the guard stops.
#include <catch2/catch.hpp>

#include "02_thread_hierarchy/thread_hierarchy_lesson.hpp"

using namespace gpulab;

TEST_CASE("every element is handled by exactly one thread, and the rest fall outside the guard", "[thread_map]") {
  const Backend backend = *parse_backend(GPULAB_TEST_BACKEND);
  const std::size_t n = GENERATE(1, 40, 1000, 1025);
  const int block = GENERATE(16, 32, 256);
  CAPTURE(n, block);
  const auto records = record_threads(n, block, backend);
  const std::size_t blocks = (n + static_cast<std::size_t>(block) - 1) / static_cast<std::size_t>(block);
  REQUIRE(records.size() == blocks * static_cast<std::size_t>(block));
  std::vector<int> taken(n, 0);
  std::size_t outside = 0;
  for (std::size_t t = 0; t < records.size(); ++t) {
    const auto& r = records[t];
    CAPTURE(t);
    REQUIRE(r.block == t / static_cast<std::size_t>(block));
    REQUIRE(r.thread == t % static_cast<std::size_t>(block));
    REQUIRE(r.warp == r.thread / 32);
    REQUIRE(r.lane == r.thread % 32);
    if (r.element < 0) {
      ++outside;
      REQUIRE(t >= n);
    } else {
      REQUIRE(static_cast<std::size_t>(r.element) == t);
      ++taken[static_cast<std::size_t>(r.element)];
    }
  }
  CHECK(outside == records.size() - n);
  CHECK(std::all_of(taken.begin(), taken.end(), [](int k) { return k == 1; }));
}
