#pragma once
// Lesson 16 in the app: the CNN trained on the shapes in a thread of its own, on any backend.
#include <memory>

#include "common/backend.hpp"
#include "common/image_training.hpp"

namespace gpulab::cnn {

std::unique_ptr<ImageTraining> live_training(Backend backend);

}  // namespace gpulab::cnn
