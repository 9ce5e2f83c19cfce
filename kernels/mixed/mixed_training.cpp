// A training step with FP16 storage, emulated on the CPU by rounding each stored value.
#include "mixed/mixed_training.hpp"

#include <cmath>
#include <stdexcept>

#include "mixed/mixed.hpp"

namespace gpulab::mixed {

namespace {

using gpulab::mlp::Layout;

float sigmoid(float z) { return 1.0f / (1.0f + std::exp(-z)); }

}  // namespace

MixedStep mixed_step(const Layout& net, std::span<float> master, std::span<const float> x, std::span<const float> t,
                     int batch, float lr, Precision precision, LossScale& loss_scale) {
  gpulab::mlp::check_layout(net);
  if (master.size() != net.parameters()) throw std::invalid_argument("mixed_step: parameters of the wrong size");
  const bool half = precision != Precision::fp32;
  // What a GPU in mixed precision stores: FP16 (or, for the reference, the float itself).
  auto store = [half](float v) { return half ? round_to_fp16(v) : v; };
  const float scale = precision == Precision::fp16_scaled ? loss_scale.scale : 1.0f;

  // The weights the step computes with: an FP16 copy of the FP32 masters.
  std::vector<float> w(master.begin(), master.end());
  for (float& v : w) v = store(v);

  // Forward: sums in FP32, activations stored.
  const int layers = net.layers();
  std::vector<std::vector<float>> a(static_cast<std::size_t>(layers) + 1);
  a[0].assign(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(batch) * net.inputs());
  for (float& v : a[0]) v = store(v);
  for (int l = 0; l < layers; ++l) {
    const int in = net.sizes[static_cast<std::size_t>(l)], out = net.sizes[static_cast<std::size_t>(l) + 1];
    const float* wl = w.data() + net.weight_offset(l);
    const float* bl = w.data() + net.bias_offset(l);
    auto& next = a[static_cast<std::size_t>(l) + 1];
    next.resize(static_cast<std::size_t>(batch) * out);
#pragma omp parallel for schedule(static)
    for (int e = 0; e < batch; ++e) {
      for (int j = 0; j < out; ++j) {
        float z = bl[j];
        for (int i = 0; i < in; ++i)
          z += wl[j * in + i] * a[static_cast<std::size_t>(l)][static_cast<std::size_t>(e) * in + i];
        next[static_cast<std::size_t>(e) * out + j] = store(sigmoid(z));
      }
    }
  }

  // The loss (FP32) and the output delta of the *scaled* loss, stored.
  MixedStep result;
  result.scale = scale;
  const auto& y = a.back();
  const std::size_t count = y.size();
  std::vector<float> delta(count);
  std::size_t nonzero = 0, flushed = 0;
  auto store_delta = [&](float exact) {
    const float kept = store(exact);
    if (exact != 0.0f) {
      ++nonzero;
      if (kept == 0.0f) ++flushed;
    }
    return kept;
  };
  double loss = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const float d = y[i] - t[i];
    loss += static_cast<double>(d) * d;
    delta[i] = store_delta(scale * 2.0f * d * y[i] * (1.0f - y[i]) / static_cast<float>(count));
  }
  result.loss = static_cast<float>(loss / static_cast<double>(count));

  // Backward: gradients stored in FP16, the previous layer's delta stored too.
  std::vector<float> grads(master.size(), 0.0f);
  for (int l = layers - 1; l >= 0; --l) {
    const int in = net.sizes[static_cast<std::size_t>(l)], out = net.sizes[static_cast<std::size_t>(l) + 1];
    const auto& input = a[static_cast<std::size_t>(l)];
    float* dw = grads.data() + net.weight_offset(l);
    float* db = grads.data() + net.bias_offset(l);
#pragma omp parallel for schedule(static)
    for (int j = 0; j < out; ++j) {
      float sum_b = 0;
      for (int e = 0; e < batch; ++e) sum_b += delta[static_cast<std::size_t>(e) * out + j];
      db[j] = store(sum_b);
      for (int i = 0; i < in; ++i) {
        float sum = 0;
        for (int e = 0; e < batch; ++e) {
          sum += delta[static_cast<std::size_t>(e) * out + j] * input[static_cast<std::size_t>(e) * in + i];
        }
        dw[j * in + i] = store(sum);
      }
    }
    if (l == 0) break;
    const float* wl = w.data() + net.weight_offset(l);
    std::vector<float> previous(static_cast<std::size_t>(batch) * in);
    std::vector<float> exact(previous.size());
#pragma omp parallel for schedule(static)
    for (int e = 0; e < batch; ++e) {
      for (int i = 0; i < in; ++i) {
        float g = 0;
        for (int j = 0; j < out; ++j) g += delta[static_cast<std::size_t>(e) * out + j] * wl[j * in + i];
        const float ai = input[static_cast<std::size_t>(e) * in + i];
        exact[static_cast<std::size_t>(e) * in + i] = g * ai * (1.0f - ai);
      }
    }
    for (std::size_t k = 0; k < exact.size(); ++k) previous[k] = store_delta(exact[k]);
    delta.swap(previous);
  }
  result.underflow = nonzero > 0 ? static_cast<double>(flushed) / static_cast<double>(nonzero) : 0.0;

  // Unscale in FP32 and update the masters; an overflow (inf or NaN) skips the step and halves
  // the scale, a long run without one doubles it.
  for (float g : grads) {
    if (!std::isfinite(g)) result.skipped = true;
  }
  if (precision == Precision::fp16_scaled) {
    if (result.skipped) {
      loss_scale.scale /= 2;
      loss_scale.good_steps = 0;
      return result;
    }
    if (++loss_scale.good_steps == LossScale::kGrowEvery) {
      loss_scale.scale *= 2;
      loss_scale.good_steps = 0;
    }
  } else if (result.skipped) {
    return result;
  }
  for (std::size_t i = 0; i < master.size(); ++i) master[i] -= lr * (grads[i] / scale);
  return result;
}

}  // namespace gpulab::mixed
