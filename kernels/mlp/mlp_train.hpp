#pragma once
// Training on the CPU: the `cpu` variant's step, and whole runs over a dataset (epochs of
// mini-batches in order, plain SGD) with the loss and accuracy after each epoch.
#include <functional>
#include <span>
#include <vector>

#include "mlp/mlp.hpp"
#include "mlp/mlp_data.hpp"

namespace gpulab::mlp {

// One step: gradients on the batch, then params −= lr · gradients. Returns the batch's loss
// before the update.
float cpu_step(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t,
               int batch, float lr, Loss loss);

// The network's outputs for `count` examples (count × outputs).
std::vector<float> cpu_predict(const Layout& net, std::span<const float> params, std::span<const float> x, int count);

// The fraction of examples whose output falls on the label's side of 0.5 (one output).
double accuracy(const Layout& net, std::span<const float> params, const Data& data);

struct TrainOptions {
  int epochs = 100;
  int batch = 64;
  float lr = 1.0f;
  Loss loss = Loss::bce;
};

struct Epoch {
  int epoch = 0;
  double loss = 0;      // mean over the epoch's batches
  double accuracy = 0;  // on the whole dataset after the epoch
};

// `step` runs one training step on a batch (the CPU's, or a GPU variant's): the same loop
// drives every backend. Returns one Epoch per epoch.
using StepFunction =
    std::function<float(std::span<float> params, std::span<const float> x, std::span<const float> t, int batch)>;
std::vector<Epoch> train(const Layout& net, std::span<float> params, const Data& data, const TrainOptions& options,
                         const StepFunction& step);

}  // namespace gpulab::mlp
