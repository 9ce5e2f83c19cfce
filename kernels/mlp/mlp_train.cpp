#include "mlp/mlp_train.hpp"

#include <algorithm>

#include "mlp/mlp_cpu.hpp"

namespace gpulab::mlp {

float cpu_step(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t,
               int batch, float lr, Loss loss) {
  std::vector<float> grads(params.size());
  const float value = gradients<float, float>(net, params, x, t, batch, loss, grads);
  for (std::size_t i = 0; i < params.size(); ++i) params[i] -= lr * grads[i];
  return value;
}

std::vector<float> cpu_predict(const Layout& net, std::span<const float> params, std::span<const float> x, int count) {
  Activations<float> a;
  forward<float, float>(net, params, x, count, a);
  return a.back();
}

double accuracy(const Layout& net, std::span<const float> params, const Data& data) {
  if (data.count == 0) return 0;
  const std::vector<float> y = cpu_predict(net, params, data.x, data.count);
  int right = 0;
  for (int i = 0; i < data.count; ++i)
    right += (y[static_cast<std::size_t>(i)] > 0.5f) == (data.y[static_cast<std::size_t>(i)] > 0.5f);
  return static_cast<double>(right) / data.count;
}

std::vector<Epoch> train(const Layout& net, std::span<float> params, const Data& data, const TrainOptions& options,
                         const StepFunction& step) {
  std::vector<Epoch> epochs;
  const int inputs = net.inputs(), outputs = net.outputs();
  for (int e = 1; e <= options.epochs; ++e) {
    double total = 0;
    int batches = 0;
    for (int first = 0; first < data.count; first += options.batch) {
      const int size = std::min(options.batch, data.count - first);
      const auto x = std::span<const float>(data.x).subspan(static_cast<std::size_t>(first) * inputs,
                                                            static_cast<std::size_t>(size) * inputs);
      const auto t = std::span<const float>(data.y).subspan(static_cast<std::size_t>(first) * outputs,
                                                            static_cast<std::size_t>(size) * outputs);
      total += step(params, x, t, size);
      ++batches;
    }
    epochs.push_back({e, batches > 0 ? total / batches : 0, accuracy(net, params, data)});
  }
  return epochs;
}

}  // namespace gpulab::mlp
