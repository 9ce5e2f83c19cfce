#pragma once
#include "common/lesson.hpp"

namespace gpulab {

// Lesson 10: lesson 07's training step spread over the GPUs of one machine, by data (every GPU a
// share of the batch, gradients averaged with NCCL) and by model (the layers split over GPUs).
const Lesson& multi_gpu_lesson();

}  // namespace gpulab
