// The capstone CNN's GPU kernels on one target (GPULAB_TEST_ON_GPU: the GPU, else the emulator):
// a whole step's loss and gradients against the float64 CPU reference, the parameters after
// Adam against the reference's update of the same gradients, outputs poisoned first, at awkward
// sizes, in FP32 and in mixed precision (on the GPU also with the convolutions on the tensor
// cores, and with cuDNN's and cuBLAS's layers); several steps in a row following the CPU's losses; and
// the mixed step's loss scaling (a step that overflows skipped, the scale halved, and doubled
// after 2000 good steps).
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
template <typename T>
using Buffer = DeviceBuffer<T>;

// The step on the device: loss, gradients and the updated parameters and moments, read back.
struct DeviceStep {
  float loss = 0, scale = 0;
  std::vector<float> grads, params, m, v;
  std::vector<int> scaler;    // the mixed step's: overflowed, good steps in a row
  std::vector<int> at1, at2;  // its max-pools' choices
};

// A network's parameters, moments and workspace on the device, kept from step to step, so that a
// test can look at them (and change the loss scale) in between.
struct DeviceTraining {
  Layout net;
  int batch;
  Buffer<float> p, m, v, x;
  Buffer<int> labels;
  Buffer<float> floats;
  Buffer<int> ints;
  DeviceTraining(const Layout& layout, int images, const std::vector<float>& params, const Moments& moments)
      : net(layout),
        batch(images),
        p(params.size(), "params"),
        m(params.size(), "m"),
        v(params.size(), "v"),
        x(std::max<std::size_t>(1, images * layout.image_size()), "x"),
        labels(std::max(1, images), "labels"),
        floats(step_floats(layout, images), "workspace"),
        ints(step_ints(layout, images), "argmax") {
    UseDevice on(kBackend);
    p.copy_from(params);
    m.copy_from(moments.m);
    v.copy_from(moments.v);
  }
  DeviceStep step(StepFunction function, const Images& data, int t, bool poison_workspace = true) {
    UseDevice on(kBackend);
    if (!data.x.empty()) x.copy_from(data.x);
    if (!data.label.empty()) labels.copy_from(data.label);
    // Whatever the step does not write stays poison, and shows (the loss scale lives on between steps).
    if (poison_workspace) floats.fill_bytes(kPoisonByte);
    function(net, p.span(), m.span(), v.span(), x.span(), labels.span(), batch, t, Adam{}, floats.span(), ints.span(),
             nullptr);
    DeviceStep r;
    std::vector<float> all(floats.size());
    floats.copy_to(all);
    const std::span<const float> whole(all);
    r.loss = step_loss(net, batch, whole)[0];
    r.scale = all[scale_at()];
    const auto g = step_gradients(net, batch, whole);
    r.grads.assign(g.begin(), g.end());
    r.params.resize(p.size());
    r.m.resize(p.size());
    r.v.resize(p.size());
    p.copy_to(r.params);
    m.copy_to(r.m);
    v.copy_to(r.v);
    std::vector<int> state(ints.size());
    ints.copy_to(state);
    const auto from = [&](std::size_t first) { return state.begin() + static_cast<std::ptrdiff_t>(first); };
    r.scaler.assign(from(scaler_state_at()), from(scaler_state_at() + 2));
    const std::size_t pool1 = std::size_t(batch) * net.c1 * net.side1() * net.side1();
    r.at1.assign(from(argmax_at()), from(argmax_at() + pool1));
    r.at2.assign(from(argmax_at() + pool1), from(argmax_at() + pool1 + std::size_t(batch) * net.features()));
    return r;
  }
  void set_scaler(float scale, int good_steps) {
    UseDevice on(kBackend);
    std::vector<float> all(floats.size());
    floats.copy_to(all);
    all[scale_at()] = scale;
    floats.copy_from(all);
    std::vector<int> state(ints.size());
    ints.copy_to(state);
    state[scaler_state_at() + 1] = good_steps;
    ints.copy_from(state);
  }
};

DeviceStep device_step(StepFunction function, const Layout& net, const std::vector<float>& params,
                       const Moments& moments, const Images& data, int batch, int t) {
  DeviceTraining training(net, batch, params, moments);
  return training.step(function, data, t);
}

// The FP32 step's bounds (float's rounding of sums, on each gradient) and the mixed step's (FP16's
// on the loss; 50 % on each layer's gradients in norm, for ReLUs that FP16's rounding switches):
// see check_step in lessons/16_cnn/cnn_step_runs.hpp.
struct Precision {
  const char* name;
  StepFunction function;
  double loss, gradient, pool_choice;
  bool per_block;
};
const Precision kFp32{"FP32", layered_step, 1e-5, 1e-5, 1e-5, false};
const Precision kImplicitGemm{"FP32, implicit GEMMs", implicit_gemm_step, 1e-5, 1e-5, 1e-5, false};
const Precision kMixed{"mixed", mixed_step, 8.0 / 2048, 0.5, 8.0 / 2048, true};
const Precision kTensorCores{"tensor cores", tensor_core_step, 8.0 / 2048, 0.5, 8.0 / 2048, true};
const Precision kLibraries{"cuDNN and cuBLAS", library_step, 1e-5, 1e-5, 1e-5, false};

// The steps this target runs: the one with NVIDIA's libraries on the GPU alone (the emulator runs
// the tensor cores' through its <mma.h>).
std::vector<Precision> precisions() {
  std::vector<Precision> all{kFp32, kImplicitGemm, kMixed, kTensorCores};
  if (kBackend == Backend::gpu) all.push_back(kLibraries);
  return all;
}

}  // namespace

TEST_CASE("a whole step's loss and gradients match the float64 CPU step, in FP32 and in mixed precision", "[cnn]") {
  const std::uint64_t seed = test::test_seed();
  CAPTURE(seed);
  const Precision precision = GENERATE(from_range(precisions()));
  CAPTURE(precision.name);
  // The seed's network at a small side; one filter and one hidden unit; odd widths; a batch of one;
  // a batch long enough for the linear layers' weight gradients to be split in slices (gemm_tiles).
  const auto [net, batch] = GENERATE(std::pair{Layout{8, 3, 16, 32, 128, 10}, 5},
                                     std::pair{Layout{4, 1, 1, 1, 1, 2}, 3}, std::pair{Layout{12, 3, 5, 7, 9, 10}, 1},
                                     std::pair{Layout{8, 2, 3, 4, 6, 3}, 0}, std::pair{Layout{4, 2, 3, 4, 5, 3}, 260});
  CAPTURE(to_string(net), batch);
  const Images data = make_shapes(batch, net.side, seed);
  Images images = data;
  images.channels = net.channels;
  images.x.resize(static_cast<std::size_t>(batch) * net.image_size());  // fewer channels: the first floats
  for (int& label : images.label) label %= net.classes;
  const std::vector<float> params = initial_parameters(net, seed + 1);
  const Moments moments(params.size());
  const DeviceStep got = device_step(precision.function, net, params, moments, images, batch, 1);
  // The float64 step, making the device's choices at its max-pools where they are right ones.
  const PoolChoices follow{got.at1, got.at2, precision.pool_choice};
  std::vector<double> expected;
  Activations<double> a;
  const double loss = gradients<double, float>(net, params, images.x, images.label, batch, expected, a, &follow);
  CHECK(follow.bad == 0);
  if (precision.per_block && got.scaler[0] != 0) {
    // The loss's gradient times 2^16 overflowed FP16 (a batch of 1 or 3, a unit's weights ±1):
    // the step must have skipped itself and moved nothing, as PyTorch's scaler does.
    CHECK(got.scale == 32768.0f);
    CHECK(got.params == params);
    return;
  }
  CHECK(std::abs(got.loss - loss) <= precision.loss * std::max(1.0, std::abs(loss)));
  if (precision.per_block) {
    // Mixed: each layer's gradients in norm (an FP16 tie can send a pool's gradient elsewhere).
    Layout::Block worst = Layout::w1;
    const double error = largest_layer_error(net, got.grads, expected, &worst);
    CAPTURE(layer_name(worst));
    CHECK(error <= precision.gradient);
  } else {
    // Each gradient is a sum of many float products: bounded by float's rounding of the largest
    // gradient, or of the terms its sums add where they are larger (terms that cancel).
    const std::vector<double> scales =
        rounding_scales<float>(net, params, images.x, images.label, batch, a, expected, &follow);
    int bad = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const double bound = precision.gradient * std::max(scales[i], 1e-30);
      if (!(std::abs(got.grads[i] - expected[i]) <= bound)) {
        if (bad++ < 5) UNSCOPED_INFO("gradient " << i << ": got " << got.grads[i] << ", expected " << expected[i]);
      }
    }
    CHECK(bad == 0);
  }
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

TEST_CASE("ten steps in a row follow the CPU's losses, in FP32 and in mixed precision", "[cnn]") {
  const Precision precision = GENERATE(from_range(precisions()));
  CAPTURE(precision.name);
  const Layout net{8, 3, 4, 8, 16, 10};
  const int batch = 16;
  const Images data = make_shapes(batch * 10, net.side, 5);
  std::vector<float> cpu_params = initial_parameters(net, 9);
  Moments cpu_moments(cpu_params.size());
  DeviceTraining device(net, batch, cpu_params, cpu_moments);
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
    const DeviceStep got = device.step(precision.function, step_data, t, false);
    const double loss = gradients<double, float>(net, cpu_params, step_data.x, step_data.label, batch, grads, a);
    adam_update<double>(cpu_params, grads, cpu_moments, t, Adam{});
    CAPTURE(t);
    // The parameters drift apart by rounding, step by step (FP16's more than float's): 1 % of the
    // loss is far above that drift and far below what a wrong step would change.
    CHECK(std::abs(got.loss - loss) <= 1e-2 * loss);
    if (precision.per_block) CHECK(got.scaler[0] == 0);  // no step skipped
  }
}

TEST_CASE("the mixed step skips a step whose gradients overflow, and halves the loss scale", "[cnn]") {
  const Layout net{8, 3, 4, 8, 16, 10};
  const int batch = 4;
  const Images data = make_shapes(batch, net.side, 7);
  const std::vector<float> params = initial_parameters(net, 11);
  DeviceTraining device(net, batch, params, Moments(params.size()));
  const DeviceStep first = device.step(mixed_step, data, 1, false);
  CHECK(first.scaler[0] == 0);
  CHECK(first.scale == 65536.0f);
  CHECK(first.params != params);
  // A scale of 10^30: dL/dlogits alone is past FP16's 65504, and becomes inf.
  device.set_scaler(1e30f, 0);
  const DeviceStep skipped = device.step(mixed_step, data, 2, false);
  CHECK(skipped.scaler[0] == 1);
  CHECK(skipped.scale == 5e29f);
  CHECK(skipped.params == first.params);  // nothing moved: not the parameters, not the moments
  CHECK(skipped.m == first.m);
  CHECK(skipped.v == first.v);
}

TEST_CASE("the loss scale doubles after 2000 steps in a row without an overflow", "[cnn]") {
  const Layout net{4, 3, 2, 2, 4, 10};
  const int batch = 2;
  const Images data = make_shapes(batch, net.side, 3);
  const std::vector<float> params = initial_parameters(net, 5);
  DeviceTraining device(net, batch, params, Moments(params.size()));
  CHECK(device.step(mixed_step, data, 1, false).scaler[1] == 1);
  device.set_scaler(65536.0f, 1998);
  const DeviceStep step = device.step(mixed_step, data, 2, false);  // the 1999th good step
  CHECK(step.scale == 65536.0f);
  CHECK(step.scaler[1] == 1999);
  const DeviceStep doubled = device.step(mixed_step, data, 3, false);  // the 2000th
  CHECK(doubled.scaler[0] == 0);
  CHECK(doubled.scale == 131072.0f);
  CHECK(doubled.scaler[1] == 0);
}
