// Every variant of every lesson on one backend (GPULAB_TEST_BACKEND: cpu, gpu or emulated),
// against the lesson's CPU reference at the lesson's awkward sizes, on fresh random inputs.
#include <catch2/catch.hpp>

#include <algorithm>

#include "registry.hpp"
#include "support/lesson_runs.hpp"

using namespace gpulab;

namespace {
const Backend kBackend = *parse_backend(GPULAB_TEST_BACKEND);

struct Case {
  std::string lesson, variant;
  std::int64_t n;
  std::int64_t max_n;
};

std::vector<Case> cases() {
  std::vector<Case> all;
  for (const Lesson* lesson : all_lessons()) {
    for (const std::string& name : test::variants_on(lesson->id, kBackend)) {
      const auto v = std::find_if(lesson->variants.begin(), lesson->variants.end(),
                                  [&](const Variant& x) { return x.name == name; });
      for (std::int64_t n : lesson->test_sizes) all.push_back({lesson->id, name, n, v->max_n});
    }
  }
  return all;
}
}  // namespace

TEST_CASE("every variant matches its CPU reference at awkward sizes and block sizes", "[variants]") {
  const Case c = GENERATE(from_range(cases()));
  // Block sizes: a single warp, the usual 256, and one that is no multiple of a warp.
  const int block = kBackend == Backend::cpu ? 256 : GENERATE(32, 256, 1000);
  const std::uint64_t seed = test::test_seed();
  CAPTURE(c.lesson, c.variant, c.n, block, seed);
  // A variant that cannot hold this size (one block of n threads) declines it; that refusal
  // is tested with its lesson.
  if (c.max_n > 0 && c.n > c.max_n) return;
  const Measurement m = test::run_variant(c.lesson, c.variant, kBackend, c.n, block, seed);
  INFO(m.first_check.message << m.final_check.message);
  CHECK(m.first_check.passed);
  CHECK(m.final_check.passed);
  CHECK_FALSE(m.samples.empty());
}

TEST_CASE("every variant gets the edges of the arithmetic right (±0, huge, infinite, NaN)", "[variants]") {
  std::vector<Case> edge_cases;
  for (const Case& c : cases()) {
    if (find_lesson(c.lesson)->edge_instance && c.n == find_lesson(c.lesson)->test_sizes.front())
      edge_cases.push_back(c);
  }
  if (edge_cases.empty()) return;  // no lesson has edge inputs
  const Case c = GENERATE_COPY(from_range(edge_cases));
  const std::uint64_t seed = test::test_seed();
  CAPTURE(c.lesson, c.variant, seed);
  const auto instance = find_lesson(c.lesson)->edge_instance(seed);
  const Measurement m = test::run_variant_on(c.lesson, c.variant, kBackend, *instance, 128);
  INFO(m.first_check.message);
  CHECK(m.first_check.passed);
  CHECK(m.final_check.passed);
}
