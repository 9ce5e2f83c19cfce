#pragma once
// Lesson 16's --train: the CNN trained on GPU Lab's shapes (or the seed's random inputs), on the
// CPU, the GPU or the emulator, with its loss as it goes and its accuracy on images it never saw.
#include <string>

#include "cnn/cnn.hpp"
#include "cnn/cnn_data.hpp"
#include "common/backend.hpp"

namespace gpulab::cnn {

// What a training run trains on: the network, the set sizes, the steps.
struct TrainingSetup {
  Layout net;
  int train_count = 0, test_count = 0, steps = 0;
  bool shapes = true;  // the shapes, or the seed's random images
};

// `dataset`: "shapes" or "noise"; `epochs`: passes over the training set (0 or 1: one). The
// emulator's setup is a smaller network on 16 × 16 images. Throws std::invalid_argument.
TrainingSetup training_setup(const std::string& dataset, Backend backend, int epochs);
// Its training set, or its test set (another seed).
Images training_images(const TrainingSetup& setup, bool test);

// `variant`: "" or the one step there is per backend ("cpu", "layered").
std::string training_report(const std::string& dataset, const std::string& variant, Backend backend, int epochs);

}  // namespace gpulab::cnn
