// The capstone CNN's GPU kernels on one target (GPULAB_TEST_ON_GPU: the GPU, else the emulator):
// a whole step's loss and gradients against the float64 CPU reference, the parameters after
// Adam against the reference's update of the same gradients, outputs poisoned first, at awkward
// sizes; and several steps in a row following the CPU's losses.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cnn/cnn.hpp"
#include "cnn/cnn_cpu.hpp"
#include "cnn/cnn_data.hpp"
#include "cnn/cnn_gpu.hpp"
#include "common/targets.hpp"
#include "common/verify.hpp"
#include "support/lesson_runs.hpp"
#include "support/test_target.hpp"

using namespace gpulab;
using namespace gpulab::cnn;

namespace {
using test::kBackend;
using test::Target;
template <typename T>
using Buffer = Target::DeviceBuffer<T>;

// The step on the device: loss, gradients and the updated parameters and moments, read back.
struct DeviceStep {
  float loss = 0;
  std::vector<float> grads, params, m, v;
};

DeviceStep device_step(const Layout& net, const std::vector<float>& params, const Moments& moments, const Images& data,
                       int batch, int t) {
  UseDevice on(kBackend);
  Buffer<float> p(params.size(), "params"), m(params.size(), "m"), v(params.size(), "v");
  Buffer<float> x(std::max<std::size_t>(1, data.x.size()), "x");
  Buffer<int> labels(std::max<std::size_t>(1, data.label.size()), "labels");
  Buffer<float> floats(step_floats(net, batch), "workspace");
  Buffer<int> ints(std::max<std::size_t>(1, step_ints(net, batch)), "argmax");
  p.copy_from(params);
  m.copy_from(moments.m);
  v.copy_from(moments.v);
  if (!data.x.empty()) x.copy_from(data.x);
  if (!data.label.empty()) labels.copy_from(data.label);
  floats.fill_bytes(kPoisonByte);  // whatever the step does not write stays poison, and shows
  layered_step(net, p.span(), m.span(), v.span(), x.span(), labels.span(), batch, t, Adam{}, floats.span(),
               ints.span());
  DeviceStep r;
  std::vector<float> all(floats.size());
  floats.copy_to(all);
  const std::span<const float> whole(all);
  r.loss = step_loss(net, batch, whole)[0];
  const auto g = step_gradients(net, batch, whole);
  r.grads.assign(g.begin(), g.end());
  r.params.resize(params.size());
  r.m.resize(params.size());
  r.v.resize(params.size());
  p.copy_to(r.params);
  m.copy_to(r.m);
  v.copy_to(r.v);
  return r;
}

}  // namespace

TEST_CASE("a whole step's loss and gradients match the float64 CPU step", "[cnn]") {
  const std::uint64_t seed = test::test_seed();
  CAPTURE(seed);
  // The seed's network at a small side; one filter and one hidden unit; odd widths; a batch of one.
  const auto [net, batch] =
      GENERATE(std::pair{Layout{8, 3, 16, 32, 128, 10}, 5}, std::pair{Layout{4, 1, 1, 1, 1, 2}, 3},
               std::pair{Layout{12, 3, 5, 7, 9, 10}, 1}, std::pair{Layout{8, 2, 3, 4, 6, 3}, 0});
  CAPTURE(to_string(net), batch);
  const Images data = make_shapes(batch, net.side, seed);
  Images images = data;
  images.channels = net.channels;
  images.x.resize(static_cast<std::size_t>(batch) * net.image_size());  // fewer channels: the first floats
  for (int& label : images.label) label %= net.classes;
  const std::vector<float> params = initial_parameters(net, seed + 1);
  const Moments moments(params.size());
  std::vector<double> expected;
  Activations<double> a;
  const double loss = gradients<double, float>(net, params, images.x, images.label, batch, expected, a);
  const DeviceStep got = device_step(net, params, moments, images, batch, 1);
  CHECK(std::abs(got.loss - loss) <= 1e-5 * std::max(1.0, std::abs(loss)));
  // Each gradient is a sum of many float products: bounded by float's rounding of the largest
  // gradient's scale times the terms summed (at most the batch × the widest layer's inputs).
  double largest = 0;
  for (double g : expected) largest = std::max(largest, std::abs(g));
  const double bound = 1e-5 * std::max(largest, 1e-30);
  int bad = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (!(std::abs(got.grads[i] - expected[i]) <= bound)) {
      if (bad++ < 5) UNSCOPED_INFO("gradient " << i << ": got " << got.grads[i] << ", expected " << expected[i]);
    }
  }
  CHECK(bad == 0);
  // Adam from the device's own gradients, in float64: the parameters and the moments it wrote.
  std::vector<float> updated = params;
  Moments after(params.size());
  const std::vector<double> device_grads(got.grads.begin(), got.grads.end());
  adam_update<double>(updated, device_grads, after, 1, Adam{});
  for (std::size_t i = 0; i < params.size(); ++i) {
    CAPTURE(i);
    REQUIRE(std::abs(got.params[i] - updated[i]) <= 1e-6f * std::max(1.0f, std::abs(updated[i])));
    REQUIRE(std::abs(got.m[i] - after.m[i]) <= 1e-6f * std::abs(after.m[i]) + 1e-30f);
  }
}

TEST_CASE("ten steps in a row follow the CPU's losses", "[cnn]") {
  const Layout net{8, 3, 4, 8, 16, 10};
  const int batch = 16;
  const Images data = make_shapes(batch * 10, net.side, 5);
  std::vector<float> cpu_params = initial_parameters(net, 9), gpu_params = cpu_params;
  Moments cpu_moments(cpu_params.size()), gpu_moments(cpu_params.size());
  for (int t = 1; t <= 10; ++t) {
    Images step_data;
    step_data.count = batch;
    step_data.side = net.side;
    const std::size_t first = static_cast<std::size_t>(t - 1) * batch;
    step_data.x.assign(data.x.begin() + static_cast<std::ptrdiff_t>(first * net.image_size()),
                       data.x.begin() + static_cast<std::ptrdiff_t>((first + batch) * net.image_size()));
    step_data.label.assign(data.label.begin() + static_cast<std::ptrdiff_t>(first),
                           data.label.begin() + static_cast<std::ptrdiff_t>(first + batch));
    std::vector<double> grads;
    Activations<double> a;
    const double loss = gradients<double, float>(net, cpu_params, step_data.x, step_data.label, batch, grads, a);
    adam_update<double>(cpu_params, grads, cpu_moments, t, Adam{});
    const DeviceStep got = device_step(net, gpu_params, gpu_moments, step_data, batch, t);
    gpu_params = got.params;
    gpu_moments.m = got.m;
    gpu_moments.v = got.v;
    CAPTURE(t);
    // The parameters drift apart by float rounding, step by step: 1 % of the loss is far above
    // that drift and far below what a wrong step would change.
    CHECK(std::abs(got.loss - loss) <= 1e-2 * loss);
  }
}
