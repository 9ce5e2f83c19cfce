// Lesson 04's CPU functions at the edges (every variant on every backend: variants_test).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "sigmoid/sigmoid.hpp"

using namespace gpulab;

TEST_CASE("the textbook form of sigmoid overflows to NaN where the stable one gives 1", "[sigmoid][cpu]") {
  // The lesson's reason for 1 / (1 + e^-x): e^x / (1 + e^x) is inf / inf from x = 89 on.
  CHECK(std::isnan(sigmoid::unstable(100.0f)));
  CHECK(std::isnan(sigmoid::unstable(1e30f)));
  CHECK(sigmoid::unstable(1.0f) == Approx(0.7310585786));
  const std::vector<float> x = {100.0f, 1e30f, -100.0f, -1e30f, 0.0f, -0.0f};
  std::vector<float> y(x.size());
  sigmoid::cpu_loop(x, y);
  CHECK(y[0] == 1.0f);
  CHECK(y[1] == 1.0f);
  CHECK(y[2] < 1e-40f);
  CHECK(y[3] == 0.0f);
  CHECK(y[4] == 0.5f);
  CHECK(y[5] == 0.5f);
}

TEST_CASE("NaN in gives NaN out, and empty input is fine", "[sigmoid][cpu]") {
  const std::vector<float> x = {std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> y(1, 0.0f);
  sigmoid::cpu_threads(x, y);
  CHECK(std::isnan(y[0]));
  std::vector<float> none;
  CHECK_NOTHROW(sigmoid::cpu_loop(none, none));
}
