// The capstone CNN's CPU reference (kernels/cnn): every gradient against float64 finite
// differences, the loss's stability, the pool's ties, Adam's first steps, the image set, and
// that the float CPU step learns the shapes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "cnn/cnn.hpp"
#include "cnn/cnn_cpu.hpp"
#include "cnn/cnn_data.hpp"

using namespace gpulab;
using namespace gpulab::cnn;

namespace {

// Small enough to difference every parameter: 8 × 8 × 3 images, 3 and 4 filters, 16 → 6 → 10.
Layout tiny() { return Layout{8, 3, 3, 4, 6, 10}; }

double loss_at(const Layout& net, const std::vector<double>& params, const Images& data, int batch) {
  std::vector<double> grads;
  Activations<double> a;
  return gradients<double, double>(net, params, data.x, data.label, batch, grads, a);
}

}  // namespace

TEST_CASE("every gradient of the CNN matches float64 central differences", "[cnn][cpu]") {
  const Layout net = tiny();
  const int batch = 3;
  const Images data = make_noise(batch, net.side, 24);
  const std::vector<float> initial = initial_parameters(net, 7);
  std::vector<double> params(initial.begin(), initial.end());
  std::vector<double> grads;
  Activations<double> a;
  gradients<double, double>(net, params, data.x, data.label, batch, grads, a);
  REQUIRE(grads.size() == net.parameters());
  // A central difference's error is O(h²) from the curvature and O(ε/h) from rounding; at h = 1e-5
  // both are below 1e-9 here. A ReLU or a pool switching inside ±h would break one parameter:
  // counted, and at most a few are allowed (none happened with these seeds).
  const double h = 1e-5;
  int bad = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const double keep = params[i];
    params[i] = keep + h;
    const double up = loss_at(net, params, data, batch);
    params[i] = keep - h;
    const double down = loss_at(net, params, data, batch);
    params[i] = keep;
    const double numeric = (up - down) / (2 * h);
    if (std::abs(numeric - grads[i]) > 1e-7 + 1e-5 * std::abs(grads[i])) {
      ++bad;
      UNSCOPED_INFO("parameter " << i << ": analytic " << grads[i] << ", numeric " << numeric);
    }
  }
  CHECK(bad <= 2);
  // And not vacuously: every block has gradients that are not zero.
  for (int b = 0; b < Layout::blocks; ++b) {
    const auto block = static_cast<Layout::Block>(b);
    const auto first = grads.begin() + static_cast<std::ptrdiff_t>(net.offset(block));
    CAPTURE(b);
    CHECK(std::any_of(first, first + static_cast<std::ptrdiff_t>(net.size(block)), [](double g) { return g != 0; }));
  }
}

TEST_CASE("the float step's gradients agree with float64's", "[cnn][cpu]") {
  const Layout net{16, 3, 8, 16, 32, 10};
  const int batch = 8;
  const Images data = make_shapes(batch, net.side, 3);
  const std::vector<float> params = initial_parameters(net, 5);
  std::vector<float> g32;
  std::vector<double> g64;
  Activations<float> a32;
  Activations<double> a64;
  const float l32 = gradients<float, float>(net, params, data.x, data.label, batch, g32, a32);
  const double l64 = gradients<double, float>(net, params, data.x, data.label, batch, g64, a64);
  CHECK(std::abs(l32 - l64) <= 1e-5 * std::abs(l64));
  double largest = 0;
  for (double g : g64) largest = std::max(largest, std::abs(g));
  for (std::size_t i = 0; i < g64.size(); ++i) {
    CAPTURE(i);
    REQUIRE(std::abs(g32[i] - g64[i]) <= 1e-4 * largest);
  }
}

TEST_CASE("softmax cross-entropy stays finite for huge logits, and its gradient rows sum to 0", "[cnn][cpu]") {
  const std::vector<double> logits = {1e4, -1e4, 0, 3, 1e4 + 1, 2};
  const std::vector<int> labels = {1, 2};
  std::vector<double> d;
  const double loss = softmax_cross_entropy<double>(logits, labels, 2, 3, d);
  CHECK(std::isfinite(loss));
  // Image 0: label 1 lies 2e4 below the top logit, so −log p = 2e4 (+ log of a sum near 1).
  CHECK(loss == Approx((2e4 + (1e4 + 1 - 2)) / 2).epsilon(1e-9));
  CHECK(d[0] + d[1] + d[2] == Approx(0).margin(1e-15));
  CHECK(d[3] + d[4] + d[5] == Approx(0).margin(1e-15));
}

TEST_CASE("max-pool takes the first of equal values and sends the gradient there alone", "[cnn][cpu]") {
  const std::vector<double> x = {1, 5, 5, 0,  //
                                 5, 2, 3, 4,  //
                                 0, 0, 7, 7,  //
                                 0, 0, 7, 7};
  std::vector<double> y, dx;
  std::vector<int> at;
  max_pool2<double>(x, 1, 4, y, at);
  CHECK(y == std::vector<double>{5, 5, 0, 7});
  CHECK(at == std::vector<int>{1, 2, 8, 10});
  max_pool2_backward<double>(std::vector<double>{1, 2, 3, 4}, at, x.size(), dx);
  CHECK(dx == std::vector<double>{0, 1, 2, 0, 0, 0, 0, 0, 3, 0, 4, 0, 0, 0, 0, 0});
}

TEST_CASE("Adam's first step moves each parameter by the rate against its gradient's sign", "[cnn][cpu]") {
  // At t = 1 the bias-corrected moments are g and g², so the step is rate · g / (|g| + ε).
  std::vector<float> params = {1, 1, 1};
  const std::vector<double> grads = {0.5, -2, 0};
  Moments moments(3);
  adam_update<double>(params, grads, moments, 1, Adam{});
  CHECK(params[0] == Approx(1 - 1e-3).epsilon(1e-6));
  CHECK(params[1] == Approx(1 + 1e-3).epsilon(1e-6));
  CHECK(params[2] == 1.0f);
  CHECK(moments.m[1] == Approx(-0.2));
  CHECK(moments.v[1] == Approx(0.004));
}

TEST_CASE("the shapes are the same on every machine, balanced, and normalised per image", "[cnn][cpu]") {
  const Images a = make_shapes(40, 32, 11), b = make_shapes(40, 32, 11), c = make_shapes(40, 32, 12);
  CHECK(a.x == b.x);
  CHECK(a.x != c.x);
  for (int k = 0; k < kShapeClasses; ++k) CHECK(std::count(a.label.begin(), a.label.end(), k) == 4);
  const std::size_t size = 3 * 32 * 32;
  for (int i = 0; i < a.count; ++i) {
    const auto first = a.x.begin() + static_cast<std::ptrdiff_t>(i * size);
    const double mean = std::accumulate(first, first + static_cast<std::ptrdiff_t>(size), 0.0) / size;
    CHECK(mean == Approx(0).margin(1e-5));
  }
  CHECK_THROWS_AS(make_shapes(1, 3, 0), std::invalid_argument);
  CHECK_THROWS_AS(check_layout(Layout{30}), std::invalid_argument);
}

TEST_CASE("the float CPU step learns the shapes", "[cnn][cpu]") {
  // A small network on 16 × 16 images: 1000 Adam steps of 32 new images each (one pass over 32000)
  // reach well past chance (10 %) on 500 images it never saw: 81.8 % with these seeds.
  const Layout net{16, 3, 8, 16, 64, 10};
  const Images train = make_shapes(32000, net.side, 1), test = make_shapes(500, net.side, 2);
  std::vector<float> params = initial_parameters(net, 3);
  Moments moments(params.size());
  std::vector<float> grads;
  Activations<float> a;
  const int batch = 32;
  const std::size_t image = net.image_size();
  float first = 0, last = 0;
  for (int t = 1; t <= 1000; ++t) {
    const int from = ((t - 1) * batch) % train.count;
    const std::span<const float> x(train.x.data() + from * image, batch * image);
    const std::span<const int> y(train.label.data() + from, static_cast<std::size_t>(batch));
    const float loss = gradients<float, float>(net, params, x, y, batch, grads, a);
    adam_update<float>(params, grads, moments, t, Adam{});
    if (t == 1) first = loss;
    last = loss;
  }
  forward<float, float>(net, std::span<const float>(params), test.x, test.count, a);
  const std::vector<int> picked = predictions<float>(a.out, test.count, net.classes);
  int right = 0;
  for (int i = 0; i < test.count; ++i)
    right += picked[static_cast<std::size_t>(i)] == test.label[static_cast<std::size_t>(i)];
  const double accuracy = static_cast<double>(right) / test.count;
  INFO("loss " << first << " -> " << last << ", test accuracy " << accuracy);
  CHECK(last < 0.5 * first);
  CHECK(accuracy >= 0.75);
}
