#pragma once
// Lesson 16's runs: one Adam step of the CNN from the instance's initial parameters, on the CPU or
// a device, and its check against the float64 step. A step is no array in and out (images and
// labels in; the loss, every gradient and the moved parameters out), so it has a Run of its own.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cnn/cnn.hpp"
#include "cnn/cnn_cpu.hpp"
#include "cnn/cnn_data.hpp"
#include "cnn/cnn_gpu.hpp"
#include "common/lesson.hpp"
#include "common/targets.hpp"
#include "mixed/mixed.hpp"

namespace gpulab::cnn {

// A batch of the shapes and the initial parameters. The float64 step they are checked against
// is computed by the check, following the checked step's choices at its max-pools (PoolChoices).
struct StepInstance : Instance {
  Layout net;
  int batch = 0;
  Images images;
  std::vector<float> initial;
};

inline std::unique_ptr<StepInstance> make_step_instance(const Layout& net, int batch, std::uint64_t seed) {
  auto in = std::make_unique<StepInstance>();
  in->net = net;
  in->batch = batch;
  in->images = make_shapes(batch, net.side, seed);
  in->initial = initial_parameters(net, seed + 1);
  return in;
}

// How close a step must come to the float64 step: its loss, and each gradient relative to the
// largest gradient (or to the terms its sums add, where they are larger: rounding_scales). FP32:
// - the loss within 1e-5 of the float64 loss (relative, or absolute below 1);
// - each gradient within 1e-5 of that scale, times the length of the longest sum over
//   32 × 32² (the first convolution's weights sum batch × side² products; float's worst case grows
//   with a sum's length): at the seed's batch of 32 the errors seen were 7e-7 of the largest, at
//   1024 images 5.7e-5 — far from a wrong layer, which is off by the size of its gradients.
// Mixed precision (every activation and its gradient rounded to FP16, u = 2⁻¹¹ ≈ 4.9e-4 relative,
// and the weights the layers read too): the loss within 8u (the logits' rounding moves it by about
// u · |logit|); each layer's gradients within 50 % in norm of the float64 ones (largest_layer_error).
// Most steps come within 1e-3 (2u); but a ReLU whose input FP16's rounding moves across 0 (or an
// output below FP16's 6e-8, rounded to 0) stops a gradient the float64 step lets through or the
// other way round, and for one image a few such switches weigh: of 100 steps of one or three
// images of the seed's network, most were within 2e-2, one in 25 near 0.2, the worst 0.36 (conv1).
// What FP16 storage can break is larger still: a scale not undone (× 65536), a value read in the
// wrong format (garbage), a layer left out (100 %). The kernels are the FP32 step's, checked
// gradient by gradient there; and the mixed step's losses follow the FP32 step's within 1 % over
// ten steps (cnn_step_test).
// Both: the float64 step follows the checked step's max-pool choices where each is within
// `pool_choice` of its window's largest, and the step's ReLU decisions at those choices where
// its value is within `pool_choice` of the reference's (PoolChoices); any other choice fails the
// check. (Before the ReLUs were followed, an FP32 step of 256 images on an H200 failed on one of
// conv1's weights by 0.3 % of it: as one image's gradient does, stopped on one side of 0 only.)
struct StepBounds {
  double loss = 1e-5, gradient = 1e-5;
  double pool_choice = 1e-5;    // how far below its window's largest a pool's choice may be (PoolChoices)
  bool grows_with_sums = true;  // FP32's sums: the bound grows with the longest one
  bool per_block = false;       // the gradient bound is on each block's norm, not on each gradient
  bool loss_scaled = false;     // the step scales its loss, and skips itself when a gradient overflows
  bool fp16_storage = false;    // its activations are stored in FP16
};
inline constexpr double kFp16Roundoff = 1.0 / 2048;
inline constexpr StepBounds kFp32Bounds{};
inline constexpr StepBounds kMixedBounds{8 * kFp16Roundoff, 0.5, 8 * kFp16Roundoff, false, true, true, true};

// A loss-scaled step that says it overflowed (its scaler's flag) must be right and have skipped
// itself: a gradient not finite, the parameters as they were, the scale halved. (At a batch of 1 the loss's gradient
// times 2^16 can pass FP16's 65504 — PyTorch's scaler skips such a step too, and the next runs at half the scale.)
inline CheckResult check_skipped_step(const StepInstance& in, std::span<const float> grads,
                                      std::span<const float> params, float scale_after, const std::string& what) {
  CheckResult r;
  r.checked = grads.size() + params.size() + 1;
  const LossScaling scaling;
  if (std::all_of(grads.begin(), grads.end(), [](float g) { return std::isfinite(g); })) {
    r.mismatches = 1;
    r.message = what + ": the step says its gradients overflowed, but every one is finite";
  } else if (!std::equal(params.begin(), params.end(), in.initial.begin())) {
    r.mismatches = 1;
    r.message = what + ": the step overflowed and was skipped, but the parameters moved";
  } else if (scale_after != scaling.initial * scaling.backoff) {
    r.mismatches = 1;
    r.message =
        what + ": the step overflowed, but the loss scale is " + std::to_string(scale_after) + " after it, not halved";
  }
  r.passed = r.mismatches == 0;
  return r;
}

// What a step gave: its loss, its gradients and the parameters after Adam's step 1, within the
// bounds; and the parameters as Adam moves them from the step's own gradients (float64 on the
// CPU): a check of the update alone, since near-zero gradients make the update (± rate · g /
// (|g| + ε)) sensitive to rounding that the gradient check already bounds.
// `choices`: the step's max-pool choices (its argmax arrays) and its pooled values (PoolChoices;
// the bounds give the tolerance).
inline CheckResult check_step(const StepInstance& in, float loss, std::span<const float> grads,
                              std::span<const float> params, PoolChoices choices, const std::string& what,
                              const StepBounds& bounds = kFp32Bounds) {
  CheckResult r;
  r.checked = grads.size() + params.size() + 1;
  const auto fail = [&](std::size_t index, double expected, double got, const std::string& message) {
    if (r.mismatches++ == 0) r.message = what + ": " + message;
    if (r.first.size() < 5) r.first.push_back({index, expected, got});
  };
  // The float64 step, making the checked step's choices where they are right ones.
  PoolChoices follow = choices;
  follow.tolerance = bounds.pool_choice;
  std::vector<double> expected;
  Activations<double> a;
  const double expected_loss =
      gradients<double, float>(in.net, in.initial, in.images.x, in.images.label, in.batch, expected, a, &follow);
  if (follow.bad > 0) {
    fail(0, 0, 0,
         fmt::format("{} of its max-pool outputs did not take the largest value of their window, or its ReLU's "
                     "decision there",
                     follow.bad));
  }
  if (!(std::abs(loss - expected_loss) <= bounds.loss * std::max(1.0, std::abs(expected_loss)))) {
    fail(0, expected_loss, loss, fmt::format("the loss is {}, expected {:.9g}", loss, expected_loss));
  }
  double largest = 0;
  for (double g : expected) largest = std::max(largest, std::abs(g));
  const double terms = static_cast<double>(in.batch) * in.net.side * in.net.side;
  const double growth = bounds.grows_with_sums ? std::max(1.0, terms / (32.0 * 32 * 32)) : 1;
  const std::vector<double> scales =
      bounds.per_block
          ? std::vector<double>{}
          : rounding_scales<float>(in.net, in.initial, in.images.x, in.images.label, in.batch, a, expected, &follow);
  if (bounds.per_block) {
    Layout::Block worst = Layout::w1;
    r.rel_error = largest_layer_error(in.net, grads, expected, &worst);
    if (!(r.rel_error <= bounds.gradient)) {
      fail(in.net.offset(worst), 0, 0,
           fmt::format("the gradients of {} are {:.3g} off in norm (bound {:.3g})", layer_name(worst), r.rel_error,
                       bounds.gradient));
    }
  }
  for (std::size_t i = 0; i < grads.size() && !bounds.per_block; ++i) {
    // The error reported beside "passed": the largest gradient's error, relative to the largest gradient.
    if (largest > 0) r.rel_error = std::max(r.rel_error, std::abs(grads[i] - expected[i]) / largest);
    const double bound = bounds.gradient * scales[i] * growth;
    if (!(std::abs(grads[i] - expected[i]) <= bound)) {
      fail(i, expected[i], grads[i],
           fmt::format("gradient {} is {}, expected {:.9g} (bound {:.3g})", i, grads[i], expected[i], bound));
    }
  }
  std::vector<float> moved = in.initial;
  Moments moments(moved.size());
  const std::vector<double> own(grads.begin(), grads.end());
  adam_update<double>(moved, own, moments, 1, Adam{});
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!(std::abs(params[i] - moved[i]) <= 1e-6f * std::max(1.0f, std::abs(moved[i])))) {
      fail(i, moved[i], params[i], fmt::format("parameter {} after Adam is {}, expected {}", i, params[i], moved[i]));
    }
  }
  r.passed = r.mismatches == 0;
  return r;
}

inline std::string name_of(const std::string& variant, Backend backend) {
  return "cnn " + variant + " (" + std::string(to_string(backend)) + ")";
}

// The float step on the CPU: the reference's loops in float, the batch's images over the cores.
class CpuStepRun : public Run {
 public:
  explicit CpuStepRun(const StepInstance& in) : in_(in), params_(in.initial.size()) {}
  void poison() override {
    gpulab::poison(params_);
    gpulab::poison(grads_);
  }
  void upload() override { params_ = in_.initial; }
  void compute() override {
    Moments moments(params_.size());
    loss_ = gradients<float, float>(in_.net, params_, in_.images.x, in_.images.label, in_.batch, grads_, a_);
    adam_update<float>(params_, grads_, moments, 1, Adam{});
  }
  CheckResult check() const override {
    return check_step(in_, loss_, grads_, params_, {a_.at1, a_.at2, 0, 0, a_.p1, a_.p2}, name_of("cpu", Backend::cpu));
  }

 private:
  const StepInstance& in_;
  std::vector<float> params_, grads_;
  Activations<float> a_;
  float loss_ = 0;
};

// A step on device memory, as layered_step takes it (the layered step, or its CUDA graph).
using DeviceStep = std::function<void(
    const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v, std::span<const float> x,
    std::span<const int> labels, int batch, int t, const Adam& adam, std::span<float> floats, std::span<int> ints)>;

// A step on a device: parameters, zero moments, the images and labels copied in fresh before each
// step (the harness's copy-in), the step the timed work; the parameters and the workspace (loss,
// gradients) come back. On the device backend chosen when it is made.
class DeviceStepRun : public Run {
 public:
  DeviceStepRun(const StepInstance& in, std::string name, DeviceStep step, const StepBounds& bounds = kFp32Bounds)
      : in_(in),
        backend_(active_device()),
        name_(std::move(name)),
        step_(std::move(step)),
        bounds_(bounds),
        count_(in.initial.size()),
        host_params_(count_, "params (host)"),
        host_x_(std::max<std::size_t>(1, in.images.x.size()), "images (host)"),
        host_labels_(std::max<std::size_t>(1, in.images.label.size()), "labels (host)"),
        host_floats_(step_floats(in.net, in.batch), "workspace (host)"),
        host_ints_(std::max<std::size_t>(1, step_ints(in.net, in.batch)), "argmax (host)"),
        params_(count_, "params"),
        m_(count_, "m"),
        v_(count_, "v"),
        x_(host_x_.size(), "images"),
        labels_(host_labels_.size(), "labels"),
        floats_(host_floats_.size(), "workspace"),
        ints_(host_ints_.size(), "argmax") {
    std::copy(in.images.x.begin(), in.images.x.end(), host_x_.data());
    std::copy(in.images.label.begin(), in.images.label.end(), host_labels_.data());
  }
  void poison() override {
    params_.fill_bytes(kPoisonByte);
    floats_.fill_bytes(kPoisonByte);
    ints_.fill_bytes(kPoisonByte);
    gpulab::poison(host_params_.span());
    gpulab::poison(host_floats_.span());
  }
  void upload() override {
    std::copy(in_.initial.begin(), in_.initial.end(), host_params_.data());
    params_.copy_from(host_params_.span());
    m_.fill_bytes(0);
    v_.fill_bytes(0);
    x_.copy_from(host_x_.span());
    labels_.copy_from(host_labels_.span());
  }
  void compute() override {
    step_(in_.net, params_.span(), m_.span(), v_.span(), x_.span(), labels_.span(), in_.batch, 1, Adam{},
          floats_.span(), ints_.span());
  }
  void download() override {
    params_.copy_to(host_params_.span());
    floats_.copy_to(host_floats_.span());
    ints_.copy_to(host_ints_.span());
  }
  CheckResult check() const override {
    const std::span<const float> floats = host_floats_.span();
    const std::span<const int> ints = host_ints_.span();
    if (bounds_.loss_scaled && ints[scaler_state_at()] != 0) {  // the step says it overflowed
      return check_skipped_step(in_, step_gradients(in_.net, in_.batch, floats), host_params_.span(),
                                floats[scale_at()], name_of(name_, backend_));
    }
    const std::size_t pool1 = std::size_t(in_.batch) * in_.net.c1 * in_.net.side1() * in_.net.side1();
    const std::size_t pool2 = std::size_t(in_.batch) * in_.net.features();
    const std::vector<float> pooled1 = pooled(pooled1_at(in_.net, in_.batch), pool1);
    const std::vector<float> pooled2 = pooled(pooled2_at(in_.net, in_.batch), pool2);
    const PoolChoices choices{
        ints.subspan(argmax_at(), pool1), ints.subspan(argmax_at() + pool1, pool2), 0, 0, pooled1, pooled2};
    return check_step(in_, step_loss(in_.net, in_.batch, floats)[0], step_gradients(in_.net, in_.batch, floats),
                      host_params_.span(), choices, name_of(name_, backend_), bounds_);
  }

 private:
  // `count` values of a pool's output from `at` in the floats workspace, as floats (FP16 decoded).
  std::vector<float> pooled(std::size_t at, std::size_t count) const {
    const std::span<const float> floats = host_floats_.span();
    if (!bounds_.fp16_storage) return {floats.begin() + at, floats.begin() + at + count};
    std::vector<float> values(count);
    const auto* bits = reinterpret_cast<const std::uint16_t*>(floats.data() + at);
    for (std::size_t i = 0; i < count; ++i) values[i] = mixed::fp16_value(bits[i]);
    return values;
  }

  const StepInstance& in_;
  Backend backend_;
  std::string name_;
  DeviceStep step_;
  StepBounds bounds_;
  std::size_t count_;
  HostBuffer<float> host_params_, host_x_;
  HostBuffer<int> host_labels_;
  HostBuffer<float> host_floats_;
  HostBuffer<int> host_ints_;
  DeviceBuffer<float> params_, m_, v_, x_;
  DeviceBuffer<int> labels_;
  DeviceBuffer<float> floats_;
  DeviceBuffer<int> ints_;
};

}  // namespace gpulab::cnn
