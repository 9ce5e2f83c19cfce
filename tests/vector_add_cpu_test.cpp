// Lesson 01's CPU variants against the float64 reference, at awkward sizes.
#include <catch2/catch.hpp>

#include "support/lesson_runs.hpp"
#include "vector_add/vector_add.hpp"

using namespace gpulab;
using Catch::Matchers::Contains;

TEST_CASE("every CPU variant of vector add matches the reference at awkward sizes", "[vector_add][cpu]") {
  const auto variant = GENERATE(from_range(test::variants_on("01", Backend::cpu)));
  const std::int64_t n = GENERATE(1, 31, 32, 1000, 1023, 1025, (1 << 20) + 3);
  const std::uint64_t seed = test::test_seed();
  CAPTURE(variant, n, seed);
  const Measurement m = test::run_variant("01", variant, Backend::cpu, n, 256, seed);
  INFO(m.first_check.message);
  CHECK(m.first_check.passed);
  CHECK(m.final_check.passed);
  CHECK(m.samples.size() == 2);
}

TEST_CASE("the CPU variants accept empty vectors", "[vector_add][cpu]") {
  std::vector<float> none;
  CHECK_NOTHROW(vector_add::cpu_loop(none, none, none));
  CHECK_NOTHROW(vector_add::cpu_threads(none, none, none));
}

TEST_CASE("the lesson's check catches a CPU result that is wrong in one element", "[vector_add][cpu]") {
  // The same comparison the lesson uses, on a result corrupted after a correct computation.
  std::vector<float> a = {1, 2, 3}, b = {4, 5, 6}, c(3);
  vector_add::cpu_threads(a, b, c);
  const std::vector<double> expected = {5, 7, 9};
  CHECK(compare(c, expected, {1.2e-7, 0}, "t").passed);
  c[1] = std::nextafter(c[1], 100.0f);
  c[1] = std::nextafter(c[1], 100.0f);  // two ulps off: more than one rounding can explain
  CHECK_THAT(compare(c, expected, {1.2e-7, 0}, "t").message, Contains("first at 1"));
}
