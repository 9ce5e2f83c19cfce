#include "16_cnn/cnn_trainer.hpp"

#include <algorithm>
#include <memory>

#include "cnn/cnn_cpu.hpp"
#include "cnn/cnn_gpu.hpp"
#include "common/targets.hpp"

namespace gpulab::cnn {

std::span<const float> images_of(const Images& set, int first, int count) {
  const std::size_t size = static_cast<std::size_t>(set.channels) * set.side * set.side;
  return {set.x.data() + static_cast<std::size_t>(first) * size, static_cast<std::size_t>(count) * size};
}

std::span<const int> labels_of(const Images& set, int first, int count) {
  return {set.label.data() + first, static_cast<std::size_t>(count)};
}

double accuracy_of(const std::vector<int>& picked, const Images& set) {
  int right = 0;
  for (std::size_t i = 0; i < picked.size(); ++i) right += picked[i] == set.label[i] ? 1 : 0;
  return set.count > 0 ? static_cast<double>(right) / set.count : 0.0;
}

namespace {

struct CpuState {
  Layout net;
  std::vector<float> params, grads;
  Moments moments;
  Activations<float> a;
};

Trainer cpu_trainer(const Layout& net, std::vector<float> initial) {
  auto s = std::make_shared<CpuState>(CpuState{net, std::move(initial), {}, Moments(), {}});
  s->moments = Moments(s->params.size());
  return {[s](std::span<const float> x, std::span<const int> labels, int t) {
            const float loss =
                gradients<float, float>(s->net, s->params, x, labels, static_cast<int>(labels.size()), s->grads, s->a);
            adam_update<float>(s->params, s->grads, s->moments, t, Adam{});
            return loss;
          },
          [s](const Images& set) {
            forward<float, float>(s->net, std::span<const float>(s->params), set.x, set.count, s->a);
            return predictions<float>(s->a.out, set.count, s->net.classes);
          },
          [s] { return s->params; }};
}

// The device's buffers, for one batch, made on the backend chosen then; every call chooses that
// backend again first (UseDevice), so the trainer may be used from any thread.
struct DeviceState {
  template <typename T>
  using Buffer = DeviceBuffer<T>;
  Backend backend = active_device();
  Layout net;
  Buffer<float> params, m, v, x;
  Buffer<int> labels;
  Buffer<float> floats;
  Buffer<int> ints;
  int skipped = 0;
  DeviceState(const Layout& layout, std::size_t count)
      : net(layout),
        params(count, "params"),
        m(count, "m"),
        v(count, "v"),
        x(kTrainingBatch * layout.image_size(), "images"),
        labels(kTrainingBatch, "labels"),
        floats(step_floats(layout, kTrainingBatch), "workspace"),
        ints(step_ints(layout, kTrainingBatch), "argmax") {}
};

Trainer device_trainer(const Layout& net, const std::vector<float>& initial, const TrainingStep& training) {
  auto s = std::make_shared<DeviceState>(net, initial.size());
  s->params.copy_from(initial);
  s->m.fill_bytes(0);
  s->v.fill_bytes(0);
  const StepFunction step = training.function;
  const bool mixed = training.loss_scaled;
  return {[s, step, mixed](std::span<const float> x, std::span<const int> labels, int t) {
            UseDevice use(s->backend);
            const int batch = static_cast<int>(labels.size());
            s->x.copy_prefix_from(x);
            s->labels.copy_prefix_from(labels);
            step(s->net, s->params.span(), s->m.span(), s->v.span(), s->x.span(), s->labels.span(), batch, t, Adam{},
                 s->floats.span(), s->ints.span(), nullptr);
            std::vector<float> loss(1);
            s->floats.copy_range_to(loss, loss_at(s->net, batch));
            if (mixed) {
              std::vector<int> overflowed(1);
              s->ints.copy_range_to(overflowed, scaler_state_at());
              s->skipped += overflowed[0] != 0 ? 1 : 0;
            }
            return loss[0];
          },
          [s](const Images& set) {
            UseDevice use(s->backend);
            std::vector<int> picked;
            std::vector<float> logits;
            for (int first = 0; first < set.count; first += kTrainingBatch) {
              const int count = std::min(kTrainingBatch, set.count - first);
              s->x.copy_prefix_from(images_of(set, first, count));
              const std::span<const float> got =
                  forward(s->net, s->params.span(), s->x.span(), count, s->floats.span(), s->ints.span());
              logits.resize(got.size());
              s->floats.copy_range_to(logits, static_cast<std::size_t>(got.data() - s->floats.data()));
              const std::vector<int> batch = predictions<float>(logits, count, s->net.classes);
              picked.insert(picked.end(), batch.begin(), batch.end());
            }
            return picked;
          },
          [s] {
            UseDevice use(s->backend);
            std::vector<float> params(s->params.size());
            s->params.copy_to(params);
            return params;
          },
          [s] { return s->skipped; }};
}

}  // namespace

Trainer make_trainer(const Layout& net, std::vector<float> initial, Backend backend, const TrainingStep& step) {
  if (backend == Backend::cpu) return cpu_trainer(net, std::move(initial));
  return on_backend(backend, [&] { return device_trainer(net, initial, step); });
}

}  // namespace gpulab::cnn
