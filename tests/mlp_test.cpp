// Lesson 07's network on the CPU: gradients against finite differences in float64, the float
// version against the float64 one, the datasets, and training that works.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "common/random.hpp"
#include "mlp/mlp.hpp"
#include "mlp/mlp_cpu.hpp"
#include "mlp/mlp_data.hpp"
#include "mlp/mlp_train.hpp"
#include "support/lesson_runs.hpp"
#include "support/mlp_batch.hpp"

using namespace gpulab;
using namespace gpulab::mlp;
using gpulab::test::Batch;
using gpulab::test::random_batch;
using gpulab::test::relative_difference;

TEST_CASE("backpropagation's gradients match finite differences in float64", "[mlp]") {
  const std::uint64_t seed = test::test_seed();
  CAPTURE(seed);
  const Layout net{{3, 5, 4, 2}};
  const Loss loss = GENERATE(Loss::mse, Loss::bce);
  CAPTURE(loss == Loss::mse ? "mse" : "bce");
  const int batch = 7;
  const Batch b = random_batch(net, batch, seed, loss == Loss::bce);
  std::vector<float> p32 = initial_parameters(net, seed);
  fill_uniform(std::span<float>(p32).subspan(net.bias_offset(0), 5), seed, 12, -0.5f, 0.5f);  // non-zero biases
  const std::vector<double> params(p32.begin(), p32.end());

  std::vector<double> analytic(params.size());
  gradients<double, double>(net, params, b.x, b.t, batch, loss, analytic);

  // Central differences: the error is O(h²) from the truncation and O(ε/h) from rounding.
  const double h = 1e-5;
  std::vector<double> numeric(params.size()), unused(params.size()), shifted = params;
  for (std::size_t i = 0; i < params.size(); ++i) {
    shifted[i] = params[i] + h;
    const double up = gradients<double, double>(net, shifted, b.x, b.t, batch, loss, unused);
    shifted[i] = params[i] - h;
    const double down = gradients<double, double>(net, shifted, b.x, b.t, batch, loss, unused);
    shifted[i] = params[i];
    numeric[i] = (up - down) / (2 * h);
  }
  CHECK(relative_difference(analytic, numeric) < 1e-7);

  SECTION("the comparison is sharp enough to catch a gradient 10 % off in one layer") {
    std::vector<double> wrong = analytic;
    for (std::size_t i = net.weight_offset(0); i < net.bias_offset(0); ++i) wrong[i] *= 1.1;
    // Far outside the 1e-7 the right gradient meets (how far depends on that layer's share of the
    // gradient's norm, which depends on the seed: about 1e-3 typically).
    CHECK(relative_difference(wrong, numeric) > 1e-5);
  }
}

TEST_CASE("the float version of a training step agrees with float64", "[mlp]") {
  const std::uint64_t seed = test::test_seed();
  CAPTURE(seed);
  const Layout net{{20, 33, 3}};
  const int batch = 65;
  const Batch b = random_batch(net, batch, seed, false);
  const std::vector<float> p32 = initial_parameters(net, seed);
  const std::vector<double> p64(p32.begin(), p32.end());
  std::vector<float> g32(p32.size());
  std::vector<double> g64(p64.size());
  const float l32 = gradients<float, float>(net, p32, b.x, b.t, batch, Loss::mse, g32);
  const double l64 = gradients<double, double>(net, p64, b.x, b.t, batch, Loss::mse, g64);
  CHECK(std::abs(l32 - l64) <= 1e-5 * std::abs(l64));
  CHECK(relative_difference(std::vector<double>(g32.begin(), g32.end()), g64) < 1e-5);
}

TEST_CASE("the datasets are a function of the seed, balanced and in range", "[mlp]") {
  for (Dataset kind : {Dataset::xor_quadrants, Dataset::moons, Dataset::circles, Dataset::spirals}) {
    CAPTURE(dataset_name(kind));
    const Data a = make_dataset(kind, 301, 5), b = make_dataset(kind, 301, 5), c = make_dataset(kind, 301, 6);
    CHECK(a.x == b.x);
    CHECK(a.x != c.x);
    double ones = 0;
    for (float y : a.y) ones += y;
    CHECK(ones == 150);
    for (float v : a.x) CHECK(std::abs(v) < 1.6f);
    CHECK(parse_dataset(dataset_name(kind)) == kind);
  }
  CHECK_FALSE(parse_dataset("donuts"));
}

TEST_CASE("layouts place every layer's parameters and refuse what they cannot hold", "[mlp]") {
  const Layout net{{784, 128, 10}};
  CHECK(net.weight_offset(0) == 0);
  CHECK(net.bias_offset(0) == 784 * 128);
  CHECK(net.weight_offset(1) == 784 * 128 + 128);
  CHECK(net.parameters() == 784 * 128 + 128 + 128 * 10 + 10);
  CHECK(to_string(net) == "784x128x10");
  CHECK_THROWS_AS(check_layout({{4}}), std::invalid_argument);
  CHECK_THROWS_AS(check_layout({{4, 0, 1}}), std::invalid_argument);
  CHECK_THROWS_AS(check_layout({{4, 9000, 1}}), std::invalid_argument);
}

TEST_CASE("training on the CPU reaches 95 % on two moons and on spirals", "[mlp]") {
  struct Case {
    Dataset data;
    Layout net;
    int epochs;
  };
  // Fixed seeds (data 42, weights 7), a bounded number of epochs, batch 64, learning rate 2, BCE.
  const Case c = GENERATE(Case{Dataset::moons, {{2, 16, 16, 1}}, 500}, Case{Dataset::spirals, {{2, 32, 32, 1}}, 1000});
  CAPTURE(dataset_name(c.data));
  const Data data = make_dataset(c.data, 512, 42);
  std::vector<float> params = initial_parameters(c.net, 7);
  const TrainOptions options{c.epochs, 64, 2.0f, Loss::bce};
  const auto epochs = train(c.net, params, data, options, [&](auto p, auto x, auto t, int batch) {
    return cpu_step(c.net, p, x, t, batch, options.lr, options.loss);
  });
  REQUIRE(epochs.size() == static_cast<std::size_t>(c.epochs));
  INFO("loss " << epochs.back().loss << ", accuracy " << epochs.back().accuracy);
  CHECK(epochs.back().accuracy >= 0.95);
  CHECK(epochs.back().loss < epochs.front().loss / 4);
}
