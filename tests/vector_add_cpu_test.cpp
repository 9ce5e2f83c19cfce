// Lesson 01's CPU functions at their edges (every variant at awkward sizes: variants_test).
#include <catch2/catch.hpp>

#include "support/lesson_runs.hpp"
#include "vector_add/vector_add.hpp"

using namespace gpulab;
using Catch::Matchers::Contains;

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
