#pragma once
// Training the CNN on one backend, a batch at a time: the CPU's float step, or a device's step
// (FP32 or mixed, ours or the libraries') on the GPU or the emulator with the parameters, moments and workspace kept on
// the device. Used by
// --train and by the app's live view.
#include <functional>
#include <span>
#include <vector>

#include "cnn/cnn.hpp"
#include "cnn/cnn_data.hpp"
#include "cnn/cnn_gpu.hpp"
#include "common/backend.hpp"

namespace gpulab::cnn {

inline constexpr int kTrainingBatch = 32;

struct Trainer {
  // One Adam step (t from 1) on at most kTrainingBatch images: the batch's loss before it.
  std::function<float(std::span<const float> x, std::span<const int> labels, int t)> step;
  // The classes the network picks for every image of a set.
  std::function<std::vector<int>(const Images& set)> predict;
  // The parameters now (a host copy).
  std::function<std::vector<float>()> parameters;
  // The steps the mixed step's loss scaling skipped so far (their gradients overflowed FP16).
  std::function<int()> skipped_steps = [] { return 0; };
};

// A device's step to train with: its name (a variant of the lesson), its function, and whether it
// scales its loss (and so may skip a step).
struct TrainingStep {
  const char* name;
  StepFunction function;
  bool loss_scaled;
};
inline constexpr TrainingStep kTrainingSteps[] = {{"layered", layered_step, false},
                                                  {"implicit_gemm", implicit_gemm_step, false},
                                                  {"mixed", mixed_step, true},
                                                  {"tensor_cores", tensor_core_step, true},
                                                  {"cudnn", library_step, false}};

// On a device, training with `step` (layered_step unless given); on the CPU, with its float step.
Trainer make_trainer(const Layout& net, std::vector<float> initial, Backend backend,
                     const TrainingStep& step = kTrainingSteps[0]);

// Images first .. first + count of a set, and their labels.
std::span<const float> images_of(const Images& set, int first, int count);
std::span<const int> labels_of(const Images& set, int first, int count);
// The share of a set the predictions get right.
double accuracy_of(const std::vector<int>& picked, const Images& set);

}  // namespace gpulab::cnn
